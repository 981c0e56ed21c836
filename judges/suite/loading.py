"""Loading unit tests from a JSONL file, a folder with train/test splits, or the GroUSE hub dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from judges.suite.conditions import Condition
from judges.errors import InputError
from judges.jsonl import read_jsonl
from judges.judging.samples import need, parse_sample
from judges.types import GROUSE_METRICS, UnitTest

HUB_ALIASES = {"grouse": "illuin/grouse"}
SPLITS = ("train", "test")
CONDITION_FIELDS = {f"{metric}_condition": metric for metric in GROUSE_METRICS}


def parse_unit_test(obj: dict[str, Any], *, path: str, line: int, default_id: str) -> UnitTest:
    """Turn one record into a UnitTest; any problem raises InputError naming file, line and field."""

    def field(container: dict[str, Any], key: str, kind: type, label: str) -> Any:
        return need(container, key, kind, path=path, line=line, label=label)

    sample = parse_sample(obj, path=path, line=line)
    metadata = field(obj, "metadata", dict, "metadata")
    test_id = str(obj.get("id") or default_id)
    conditions_obj = field(obj, "conditions", dict, "conditions")
    conditions = {}
    for key, metric in CONDITION_FIELDS.items():
        raw = field(conditions_obj, key, str, f"conditions.{key}")
        conditions[metric] = Condition.parse(raw, test_id=test_id, field=f"conditions.{key}", path=path, line=line)
    return UnitTest(
        id=test_id, sample=sample, conditions=conditions,
        test_type=field(metadata, "test_type", str, "metadata.test_type"),
        goal=str(metadata.get("goal", "")), set_id=metadata.get("set_id"), source=f"{path}:{line}",
    )


def _parse_all(records: Iterable[tuple[int, dict[str, Any]]], path: str, id_prefix: str) -> list[UnitTest]:
    tests = [parse_unit_test(obj, path=path, line=line, default_id=f"{id_prefix}{line}") for line, obj in records]
    seen: dict[str, str] = {}
    for test in tests:
        if test.id in seen:
            raise InputError(f"duplicate id {test.id!r} (first at {seen[test.id]})", path=path,
                             line=int(str(test.source).rsplit(":", 1)[1]), field="id")
        seen[test.id] = str(test.source)
    return tests


def load_unit_tests(source: str | Path, split: str | None = None) -> list[UnitTest]:
    """Load from a .jsonl file, a folder holding `<split>.jsonl`, or a hub dataset id/alias."""
    if split is not None and split not in SPLITS:
        raise InputError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    text = str(source)
    path = Path(text)
    if path.is_file():
        return _parse_all(read_jsonl(path), str(path), f"{path.stem}:")
    if path.is_dir():
        chosen = path / f"{split or 'test'}.jsonl"
        if not chosen.is_file():
            raise InputError(f"no {chosen.name} in this folder (expected train.jsonl / test.jsonl)", path=str(path))
        return _parse_all(read_jsonl(chosen), str(chosen), f"{chosen.stem}:")
    if text in HUB_ALIASES or ("/" in text and not text.endswith(".jsonl") and not path.exists()):
        return load_hub_unit_tests(HUB_ALIASES.get(text, text), split or "test")
    raise InputError("unit-test file or folder not found", path=text)


def load_hub_unit_tests(repo_or_folder: str, split: str) -> list[UnitTest]:
    """Load a GroUSE-layout dataset (train.jsonl, test.jsonl) from the hub or a local folder via `datasets`."""
    from judges.suite.hub_dataset import load_split_records

    records = load_split_records(repo_or_folder, split)
    label = f"{repo_or_folder}[{split}]"
    return _parse_all(((index, dict(row)) for index, row in enumerate(records, start=1)), label, f"{split}:")
