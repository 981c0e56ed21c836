"""pytest plugin: `pytest --judgelab CONFIG` validates a judge inside a team's own test run: one item per bar (it
fails when the judge misses the bar, listing the tests behind it), one for the `baseline` run if the config names one
(it fails when the pass rate fell significantly) and one per unit test (xfailed, with the reason,
when the judge did not pass it: the bars decide, the unit-test items say where to look)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judges.errors import JudgelabError
from judges.integrations.gate import GateConfig, check_gate_judge, gate_tests, run_gate
from judges.runs.folder import default_run_dir
from judges.runs.run_writer import FolderRecorder
from judges.suite.drift import drift, drift_lines
from judges.suite.misses import Miss, listing, misses

LISTED = 10  # tests named in a missed bar's message
_GATE = pytest.StashKey[tuple[Any, list[Any], Any]]()  # the checked config, its unit tests and the run folder
_RUN = pytest.StashKey[Any]()  # the gate's Run, once it ran


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("judgelab")
    group.addoption(
        "--judgelab",
        metavar="CONFIG",
        default=None,
        help="validate the judge described by this judgelab TOML config; one test per bar and per unit test",
    )
    group.addoption(
        "--judgelab-out",
        metavar="DIR",
        default=None,
        help="the gate's run folder (default results/runs/<run-id> beside the config file)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Read and check the gate's config, its unit tests and its judge before collection: a missing or bad file, or a
    missing API key, is one line, no traceback, and pytest stops with its usage-error exit code (4)."""
    path = config.getoption("judgelab")
    if not path:
        return

    try:
        gate = GateConfig.load(path)
        tests = gate_tests(gate)
        check_gate_judge(gate)
    except JudgelabError as err:
        raise pytest.UsageError(f"judgelab: {err}") from None
    out = config.getoption("judgelab_out")
    config.stash[_GATE] = (gate, tests, Path(out) if out else default_out(Path(path)))


def default_out(config_path: Path) -> Path:
    """The run folder beside the config file: <its folder>/results/runs/<time>-gate-<its name>."""

    return default_run_dir(config_path.resolve().parent / "results" / "runs", "gate", config_path.stem)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Where the gate's report is, once it ran."""
    done = config.stash.get(_RUN, None)
    if done is not None and done.folder is not None:
        terminalreporter.write_line(f"judgelab: report {done.folder / 'report.html'}")


class JudgelabFailed(Exception):
    """A missed bar: its message is the whole report (no traceback)."""


class _Validation:
    """Runs the gate once, on first use, and keeps its bar results and the run."""

    def __init__(self, config: Any, tests: list[Any], out_dir: Path, pytest_config: pytest.Config) -> None:
        self.config, self.tests, self.out_dir, self.pytest_config = config, tests, out_dir, pytest_config
        self._done: tuple[list[Any], Any] | None = None
        self._error: str | None = None  # a user error of the run: every item reports it, the run is not retried
        self._misses: dict[str, list[Miss]] | None = None  # each unit test's misses, read once from the run

    def results(self) -> tuple[list[Any], Any]:
        if self._error is not None:
            raise JudgelabFailed(self._error)
        if self._done is None:
            try:
                results, run = run_gate(self.config, self.out_dir, self.tests)
            except JudgelabError as err:  # one line, as the CLI says it
                self._error = f"judgelab: error: {err}"
                raise JudgelabFailed(self._error) from None
            self.pytest_config.stash[_RUN] = run
            if run.stop_reason:
                raise JudgelabFailed(f"judgelab: the gate's run stopped ({run.stop_reason}): {run.stop_message}")
            self._done = (results, run)
        return self._done

    def misses_of(self, test_id: str) -> list[Miss] | None:
        """A unit test's misses in item order (None: the run has no record of it). The run's records are streamed
        once, on first use, keeping the misses by test rather than every record."""
        if self._misses is None:
            _, run = self.results()
            found: dict[str, list[tuple[int, int, list[Miss]]]] = {}
            for record in run.iter_records():
                found.setdefault(record.id, []).append((record.draw, record.order, misses([record])))
            self._misses = {
                test: [miss for *_, listed in sorted(rows, key=lambda row: row[:2]) for miss in listed]
                for test, rows in found.items()
            }
        return self._misses.get(test_id)


class _JudgelabItem(pytest.Item):
    def __init__(self, *, validation: _Validation, config_path: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validation, self.config_path = validation, config_path

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, JudgelabFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int, str]:
        return self.config_path, 0, f"judgelab: {self.name}"


class JudgeBarItem(_JudgelabItem):
    """One bar of the gate, e.g. `faithfulness >= 0.9`; a miss lists the worst of the tests behind it."""

    def __init__(self, *, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index

    def runtest(self) -> None:
        results, run = self.validation.results()
        result = results[self.index]
        if not result.passed:
            lines = listing(run.iter_records(), result.bar.target, LISTED)
            where = f"report: {run.folder / 'report.html'}" if run.folder else ""
            raise JudgelabFailed("\n".join([result.describe(), *(f"  {line}" for line in lines), where]).rstrip())


class DriftItem(_JudgelabItem):
    """The gate's `baseline`: fails when the pass rate fell significantly from that earlier run (McNemar's exact
    test), listing the flipped tests and both runs' fingerprints."""

    def __init__(self, *, baseline: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.baseline = baseline

    def runtest(self) -> None:
        _, run = self.validation.results()
        result = drift(FolderRecorder(self.baseline).load(), run)
        if result.fell:
            raise JudgelabFailed("\n".join(drift_lines(result, Path(self.baseline).name, "this run")))


class UnitTestItem(_JudgelabItem):
    """One unit test: passes when the judge met every condition, else xfails naming what it got wrong."""

    def __init__(self, *, test_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test_id = test_id

    def runtest(self) -> None:
        self.validation.results()
        found = self.validation.misses_of(self.test_id)
        if found is None:
            raise JudgelabFailed(f"{self.test_id}: not judged")
        if found:
            pytest.xfail("; ".join(m.describe(80) for m in found))


class JudgelabConfig(pytest.File):
    """The gate's TOML file as a pytest collector: its bars, then its unit tests."""

    def collect(self) -> list[pytest.Item]:
        gate, tests, out_dir = self.config.stash[_GATE]
        common = {"validation": _Validation(gate, tests, out_dir, self.config), "config_path": str(self.path)}
        bars: list[pytest.Item] = [
            JudgeBarItem.from_parent(self, name=f"judgelab[{bar.name}]", index=index, **common)
            for index, bar in enumerate(gate.bars)
        ]
        if gate.baseline:
            bars.append(
                DriftItem.from_parent(self, name="judgelab[no drift from baseline]", baseline=gate.baseline, **common)
            )
        return bars + [
            UnitTestItem.from_parent(self, name=f"judgelab[{test.id}]", test_id=test.id, **common) for test in tests
        ]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Collect the config's items through pytest's own collection hooks, so "collected N items" counts them."""
    config_path = config.getoption("judgelab")
    if not config_path:
        return
    collector = JudgelabConfig.from_parent(session, path=Path(config_path).resolve())
    collector.ihook.pytest_collectstart(collector=collector)
    report = collector.ihook.pytest_make_collect_report(collector=collector)
    collector.ihook.pytest_collectreport(report=report)
    items.extend(node for node in report.result if isinstance(node, pytest.Item))
