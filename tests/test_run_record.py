"""One typed run record through one seam: `Run.config` is a `RunConfig` (nothing reads a run's config by key outside
the record package), every committed run.json re-writes byte for byte from its loaded form, and a run is written and
read through the caller's recorder (a run's, a baseline's and a jury's alike)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, reply, scripted_judge

from judges.calls.scripted import by_metric
from judges.errors import InputError
from judges.leaderboard.config_types import Jury
from judges.leaderboard.jury import jury_run
from judges.records import ItemRecord, Summary
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import FolderRecorder, Recorder
from judges.runs.service import run_task
from judges.suite.baselines import run_baseline
from judges.suite.loading import load_unit_tests
from judges.suite.suite_settings import SuiteSettings
from judges.suite.unit_test_task import UnitTestTask

# the record package: the typed header itself, and the schema below it (which reads run.json's raw dicts)
ALL = ("answer_relevancy", "completeness", "faithfulness", "usefulness")
RECORD_PACKAGE = ("judges/records/", "judges/runs/run_config.py")
COMMITTED = sorted(
    path.parent for top in ("results", "tests/data") for path in (ROOT / top).rglob("run.json") if path.is_file()
)


def _named_config(node: ast.expr) -> bool:
    """`config`, `run.config`, `run_config`, `self.config`...: an expression named as a config."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.endswith("config")


def keyed_reads(path: Path) -> Iterator[int]:
    """The lines of `path` that read a config by key: `config[...]` or `config.get(...)`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and _named_config(node.value):
            yield node.lineno
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _named_config(node.func.value)
        ):
            yield node.lineno


def test_no_module_reads_a_run_config_by_key_outside_the_record_package():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "judges").rglob("*.py"))
        if not str(path.relative_to(ROOT)).startswith(RECORD_PACKAGE)
        for line in keyed_reads(path)
    ]
    keyed = re.compile(r"config(\.get\(|\[)")
    found += [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "judges" / "pages" / "templates").glob("*.jinja"))
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if keyed.search(text)
    ]
    assert found == []


def test_a_run_folder_is_read_only_through_the_folder_recorder():
    # Run.load parses run.json for the recorder; every other module reads a run through FolderRecorder(...).load()
    found = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "judges").rglob("*.py"))
        if "Run.load(" in path.read_text(encoding="utf-8") and path.name not in ("run.py", "run_writer.py")
    ]
    assert found == []


def test_the_key_check_sees_both_forms(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f(run, config):\n    a = run.config.get('judge')\n    return config['data'], a\n")
    assert sorted(keyed_reads(probe)) == [2, 3]


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_committed_run_config_is_rewritten_byte_for_byte_from_its_loaded_form(folder):
    # the committed folders were written by older judgelabs (their summaries lack fields added since, which a
    # re-written summary fills in): the config, kind, timing and stop are re-written exactly as they were
    run = FolderRecorder(folder).load()
    assert isinstance(run.config, RunConfig)
    raw = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    again = json.loads(json.dumps(run.to_json(), indent=2, ensure_ascii=False))
    for key in ("format", "kind", "config", "timing", "stop_reason", "stop_message"):
        assert json.dumps(again[key], indent=2, ensure_ascii=False) == json.dumps(
            raw[key], indent=2, ensure_ascii=False
        )


def test_a_run_json_is_rewritten_byte_for_byte_from_its_loaded_form(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:4]
    judge, _ = scripted_judge(by_metric({m: reply(m, 4) for m in ALL}))
    config = {"judge": "scripted", "prompts": {"name": "default", "folder": "prompts/default", "sha256": {}}}
    run_task(UnitTestTask(tests, judge, 2), judge.runtime, FolderRecorder(tmp_path / "a"), {**config, "draws": 2})
    FolderRecorder(tmp_path / "a").load().save(tmp_path / "b")  # timestamps are the loaded ones: none to normalise
    assert (tmp_path / "b" / "run.json").read_bytes() == (tmp_path / "a" / "run.json").read_bytes()


def test_an_old_baseline_folder_reads_typed_with_the_keys_it_never_had_as_none():
    run = FolderRecorder(ROOT / "results" / "runs" / "oracle--unit_tests_unit_tests_test_first-32").load()
    assert run.config.judge == "baseline/oracle" and run.config.split == "test" and run.config.prompts_name
    assert run.config.judgelab_version is None and run.config.draws is None  # this folder never recorded them
    assert run.config.settings(SuiteSettings.of).n_tests == 32
    assert "judgelab_version" not in run.config.to_json()


def test_a_config_built_by_field_writes_the_keys_it_has_values_for():
    config = RunConfig(judge="j", data="d.jsonl", details={"n_tests": 3})
    assert config.to_json() == {"judge": "j", "data": "d.jsonl", "n_tests": 3}
    assert RunConfig.from_json(config.to_json()) == config and RunConfig.from_json({}).to_json() == {}


def test_a_config_key_of_the_wrong_type_is_one_line_naming_it(tmp_path):
    meta = {"format": 2, "kind": "grade", "config": {"judge": "j", "max_cost": "ten"}, "summary": {}}
    (tmp_path / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        FolderRecorder(tmp_path).load()
    assert caught.value.exit_code == 2
    assert str(caught.value) == f"{tmp_path / 'run.json'}: expected a number or null (field 'config.max_cost')"


class MemoryRecorder:
    """A recorder that keeps the run in memory: what a caller may inject in place of a run folder."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.records: list[ItemRecord] = []
        self.run: Run | None = None

    @property
    def folder(self) -> Path | None:
        return None

    def open(self) -> None:
        self.events.append("open")

    def item(self, record: ItemRecord) -> None:
        self.events.append("item")
        self.records.append(record)

    def flush(self) -> None:
        self.events.append("flush")

    def finish(self, run: Run) -> None:
        self.events.append("finish")
        self.run = run

    def load(self) -> Run:
        assert self.run is not None
        return self.run

    def items(self) -> Iterator[ItemRecord]:
        yield from self.records

    def summary(self) -> Summary:
        return self.load().summary


def _events(n: int) -> list[str]:
    return ["open", *["item"] * n, "flush", "finish"]


def test_a_run_a_baseline_and_a_jury_write_through_the_recorder_they_are_given(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:3]
    judge, _ = scripted_judge(by_metric({m: reply(m, 5) for m in ALL}))
    given: Recorder = MemoryRecorder()
    run = run_task(UnitTestTask(tests, judge), judge.runtime, given, {"judge": "scripted"})
    assert given.events == _events(3) and given.load() is run and run.folder is None  # type: ignore[attr-defined]
    assert sorted(r.id for r in given.items()) == sorted(t.id for t in tests)
    assert given.summary() == run.summary and run.config.judge == "scripted"

    baseline = MemoryRecorder()
    oracle = run_baseline("oracle", tests, recorder=baseline)
    assert baseline.events == _events(3) and baseline.load() is oracle
    assert oracle.config.judge == "baseline/oracle" and oracle.summary.total_pass_rate == 1.0

    jury = MemoryRecorder()
    made = jury_run(Jury(name="j", members=["a", "b", "c"], rule="majority"), [oracle] * 3, tests, jury)
    assert jury.events == _events(3) and jury.load() is made and jury.records == made.records
    assert made.config.to_json() == {"judge": "jury j: majority of a, b, c", "members": ["a", "b", "c"]}


def test_a_jury_folder_reads_back_through_the_folder_recorder(tmp_path):
    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")[:3]
    oracle = run_baseline("oracle", tests)
    made = jury_run(Jury(name="j", members=["a", "b"], rule="majority"), [oracle] * 2, tests, FolderRecorder(tmp_path))
    read = FolderRecorder(tmp_path)
    assert read.load().config == made.config and read.summary() == made.summary
    assert [r.to_json() for r in read.items()] == [r.to_json() for r in made.records]
