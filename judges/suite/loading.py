"""Loading unit tests from a JSONL file, a folder with train/test splits, or the GroUSE hub dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.checked import check, id_problem
from judges.files.input_problems import Problems, RecordFields, note_duplicate_ids, parse_records, read_records
from judges.judging.samples import read_sample
from judges.suite.conditions import Condition, metric_grades
from judges.suite.hub_dataset import load_split_records
from judges.types import GROUSE_METRICS, UnitTest

HUB_ALIASES = {"grouse": "illuin/grouse"}
SPLITS = ("train", "test")
CONDITION_FIELDS = {f"{metric}_condition": metric for metric in GROUSE_METRICS}


def parse_unit_test(obj: dict[str, Any], *, path: str, line: int, default_id: str) -> UnitTest:
    """Turn one record into a UnitTest; InputProblems lists every problem of the record, by line and field."""
    fields = RecordFields(path, line)
    sample = read_sample(fields, obj, unit_test=True)
    metadata = fields.need(obj, "metadata", dict)
    test_type = fields.need(metadata, "test_type", str, "metadata.test_type", nonempty=True)
    raw_id = obj.get("id")
    if raw_id is not None and id_problem(raw_id):
        fields.add(str(id_problem(raw_id)), "id")
        raw_id = None
    test_id = str(raw_id or default_id)
    conditions_obj = fields.need(obj, "conditions", dict)
    conditions = {}
    for key, metric in CONDITION_FIELDS.items():
        label = f"conditions.{key}"
        raw = fields.need(conditions_obj, key, str, label)
        if raw is None:
            continue
        try:
            condition = Condition.parse(raw, test_id=test_id, field=label, path=path, line=line)
        except InputError as err:
            fields.add(err.message, label)
            continue
        if condition.unmeetable(metric_grades(metric)):
            grades = metric_grades(metric)
            fields.add(
                f"no {metric} grade can meet {raw!r}: grades are {grades[0]}-{grades[-1]} or null"
                if len(grades) > 2
                else f"no {metric} grade can meet {raw!r}: grades are 0 or 1, or null",
                label,
            )
        conditions[metric] = condition
    fields.done()
    assert sample is not None  # done() raised on every problem, a missing sample among them
    return UnitTest(
        id=test_id,
        sample=sample,
        conditions=conditions,
        test_type=test_type,  # type: ignore[arg-type]
        goal=str(metadata.get("goal", "")),
        set_id=metadata.get("set_id"),
        source=f"{path}:{line}",
    )


def _parse_all(problems: Problems, records: list[tuple[int, dict[str, Any]]], id_prefix: str) -> list[UnitTest]:
    """Parse every record, then check ids; raise one InputProblems with everything found in the file."""
    path = problems.path
    parsed = parse_records(
        records, problems, lambda line, obj: parse_unit_test(obj, path=path, line=line, default_id=f"{id_prefix}{line}")
    )
    note_duplicate_ids(
        [(line, str(obj["id"]) if obj.get("id") and not id_problem(obj["id"]) else None) for line, obj in records],
        problems,
    )
    problems.raise_if_any()
    return [test for _, test in parsed]


def _load_file(path: Path) -> list[UnitTest]:
    refuse_plain_samples(path)
    problems = Problems(path)
    return _parse_all(
        problems,
        read_records(path, problems, "id, input, references, expected_output, actual_output, conditions"),
        f"{path.stem}:",
    )


def refuse_plain_samples(path: Path) -> None:
    """One line, instead of "conditions: missing field" on every record, when the file holds plain samples: unit
    tests are samples plus the grades they must get, and plain samples are graded by `judgelab evaluate`."""
    import json

    with path.open(encoding="utf-8", errors="replace") as handle:
        first = next((line for line in handle if line.strip()), "")
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):  # not JSON, or nested too deep: the record checks name the line
        return
    if isinstance(record, dict) and "conditions" not in record and ("input" in record or "actual_output" in record):
        raise InputError(
            "plain samples, not unit tests (no `conditions`: the grades each answer must get); meta-eval and "
            "validate score a judge against unit tests (docs/metrics.md, section The unit tests); grade plain samples with "
            "`judgelab evaluate FILE`",
            path=str(path),
            line=1,
        )


def load_unit_tests(source: str | Path, split: str | None = None) -> list[UnitTest]:
    """Load from a .jsonl file, a folder holding `<split>.jsonl`, or a hub dataset id/alias."""
    if split is not None and split not in SPLITS:
        raise InputError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    text = str(source)
    path = Path(text)
    if path.is_file():
        return _load_file(path)
    if path.is_dir():
        chosen = path / f"{split or 'test'}.jsonl"
        if not chosen.is_file():
            raise InputError(f"no {chosen.name} in this folder (expected train.jsonl / test.jsonl)", path=str(path))
        return _load_file(chosen)
    if text in HUB_ALIASES or ("/" in text and not text.endswith(".jsonl") and not path.exists()):
        return load_hub_unit_tests(HUB_ALIASES.get(text, text), split or "test")
    raise InputError("unit-test file or folder not found", path=text)


def load_hub_unit_tests(repo_or_folder: str, split: str) -> list[UnitTest]:
    """Load a GroUSE-layout dataset (train.jsonl, test.jsonl) from the hub or a local folder via `datasets`."""

    records = load_split_records(repo_or_folder, split)
    problems = Problems(f"{repo_or_folder}[{split}]")
    for index, row in enumerate(records, start=1):
        check(row, path=problems.path, line=index)
    return _parse_all(problems, [(index, dict(row)) for index, row in enumerate(records, start=1)], f"{split}:")
