"""pytest plugin: `pytest --judgelab CONFIG` validates a judge inside a team's own test run, one item per bar."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("judgelab")
    group.addoption(
        "--judgelab",
        metavar="CONFIG",
        default=None,
        help="validate the judge described by this judgelab TOML config; one test per bar",
    )


class _Validation:
    """Runs the gate once, on first use, and keeps its bar results."""

    def __init__(self, config_path: str, out_dir: str) -> None:
        self.config_path, self.out_dir = config_path, out_dir
        self._results: list[Any] | None = None

    def results(self) -> list[Any]:
        if self._results is None:
            from pathlib import Path

            from judges.runs.gate import GateConfig, run_gate

            results, run = run_gate(GateConfig.load(self.config_path), Path(self.out_dir))
            if run.stop_reason:
                raise RuntimeError(f"judgelab: the gate's run stopped ({run.stop_reason}): {run.stop_message}")
            self._results = results
        return self._results


class JudgeBarItem(pytest.Item):
    """One bar of the gate, e.g. `faithfulness >= 0.9`."""

    def __init__(self, *, validation: _Validation, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validation, self.index = validation, index

    def runtest(self) -> None:
        result = self.validation.results()[self.index]
        if not result.passed:
            raise AssertionError(result.describe())

    def reportinfo(self) -> tuple[str, int, str]:
        return self.validation.config_path, 0, f"judgelab: {self.name}"


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    config_path = config.getoption("judgelab")
    if not config_path:
        return
    from judges.runs.gate import GateConfig

    gate = GateConfig.load(config_path)
    out_dir = str(config._tmp_path_factory.mktemp("judgelab"))  # type: ignore[attr-defined]
    validation = _Validation(config_path, out_dir)
    for index, bar in enumerate(gate.bars):
        items.append(
            JudgeBarItem.from_parent(session, name=f"judgelab[{bar.name}]", validation=validation, index=index)
        )
