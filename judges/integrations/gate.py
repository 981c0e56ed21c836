"""The validation gate: bars on a meta-eval report (minimum pass rates, maximum failure rate) and its TOML config."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.calls.api_keys import check_key
from judges.errors import ConfigError
from judges.files.toml_config import read_toml, validate_config
from judges.records import Summary
from judges.types import ALL_METRICS

MIN_TARGETS = (*ALL_METRICS, "total")
MAX_TARGETS = ("failure_rate",)
ALIASES = {"format_failure_rate": "failure_rate"}  # the name judgelab 0.1 used


@dataclass(frozen=True)
class Bar:
    """`target >= threshold` (kind "min") or `target <= threshold` (kind "max")."""

    target: str
    threshold: float
    kind: str = "min"

    @property
    def name(self) -> str:
        return f"{self.target} {'>=' if self.kind == 'min' else '<='} {self.threshold:g}"

    @classmethod
    def parse(cls, text: str, kind: str = "min") -> Bar:
        target, sep, value = text.partition("=")
        target = ALIASES.get(target.strip(), target)
        allowed = MIN_TARGETS if kind == "min" else MAX_TARGETS
        if not sep or target.strip() not in allowed:
            import difflib

            near = difflib.get_close_matches(target.strip(), allowed, n=1, cutoff=0.6) if sep else []
            hint = (
                f"did you mean {near[0]}={value}?"
                if near
                else f"expected NAME=VALUE with NAME one of {', '.join(allowed)}"
            )
            raise ConfigError(f"bad --{kind} {text!r}: {hint}")
        try:
            threshold = float(value)
        except ValueError:
            raise ConfigError(f"bad --{kind} {text!r}: {value!r} is not a number") from None
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"bad --{kind} {text!r}: a rate lies between 0 and 1")
        return cls(target.strip(), threshold, kind)


@dataclass(frozen=True)
class BarResult:
    bar: Bar
    measured: float | None

    @property
    def passed(self) -> bool:
        if self.measured is None:
            return False
        return self.measured >= self.bar.threshold if self.bar.kind == "min" else self.measured <= self.bar.threshold

    def describe(self) -> str:
        shown = "n/a" if self.measured is None else f"{self.measured:.3f}"
        return f"{'PASS' if self.passed else 'FAIL'} {self.bar.name} (measured {shown})"


def measure(summary: Summary, target: str) -> float | None:
    """A pass rate (over completed tests), the total, or the share of judged verdicts the run failed to get."""
    if target == "total":
        return summary.total_pass_rate
    if target == "failure_rate":
        judged = [summary.metrics[m] for m in ALL_METRICS[:4]]
        n = sum(stats.n for stats in judged)
        return sum(stats.failures or 0 for stats in judged) / n if n else None
    return summary.metrics[target].pass_rate


def check_bars(summary: Summary, bars: list[Bar]) -> list[BarResult]:
    return [BarResult(bar, measure(summary, bar.target)) for bar in bars]


TEST_KEYS = ("source", "split", "limit")


def gate_tests(config: GateConfig) -> list[Any]:
    """The unit tests the gate's [tests] table names (default: the shipped suite's test split)."""
    from judges.api import load_tests  # defers pydantic

    unknown = set(config.tests) - set(TEST_KEYS)
    if unknown:
        raise ConfigError(f"unknown key(s) {sorted(unknown)} in [tests]; expected one of {', '.join(TEST_KEYS)}")
    source = config.tests.get("source")
    split = config.tests.get("split") or ("test" if source is None else None)
    return load_tests(source, split, config.tests.get("limit"))


def run_gate(config: GateConfig, out: Path | None, tests: list[Any] | None = None) -> tuple[list[BarResult], Any]:
    """Run the unit tests the gate names with its judge, and check its bars: (bar results, the Run)."""
    from judges.api import run_unit_tests  # defers pydantic
    from judges.config.judge import build_config  # defers pydantic

    tests = gate_tests(config) if tests is None else tests
    source = config.tests.get("source")
    split = config.tests.get("split") or ("test" if source is None else None)
    judge = build_config(config.judge)
    run = run_unit_tests(tests, judge, out=out, data=str(source or "unit_tests (shipped)"), split=split)
    return check_bars(run.summary, config.bars), run


def check_gate_judge(config: GateConfig) -> None:
    """What a run checks before its first call, checked before pytest collects the gate: the [judge] section as a
    judge, and the provider's API key unless the gate replays recorded replies (one line, as the CLI says it,
    instead of one failure per item)."""
    from judges.config.judge import build_config  # defers pydantic

    judge = build_config(config.judge)
    check_key(judge.judge_model(), judge.connection_extra(), replay=judge.cache_mode == "replay")


@dataclass
class GateConfig:
    """A validation config (TOML): the judge, the unit tests, and the bars."""

    judge: dict[str, Any] = field(default_factory=dict)  # the [judge] keys given (JudgeConfig fields)
    tests: dict[str, Any] = field(default_factory=dict)
    bars: list[Bar] = field(default_factory=list)
    baseline: str | None = None  # a run folder (relative to the config file) the pass rate must not fall from

    @classmethod
    def load(cls, path: str | Path, *, bars_needed: bool = True) -> GateConfig:
        """The file checked by its schema; `bars_needed` False for a certified gate, which reads only [judge]."""
        from judges.integrations.gate_schema import GateFile  # defers pydantic

        raw = read_toml(path)
        data = validate_config(GateFile, raw, path)
        bars = [Bar(k, float(v), kind) for kind in ("min", "max") for k, v in raw.get(kind, {}).items()]  # file order
        baseline = str(Path(path).parent / data.baseline) if data.baseline else None
        if bars_needed and not bars and not baseline:
            raise ConfigError(f"{path}: no bars: add a [min] table, e.g. total = 0.8, or a baseline run folder")
        return cls(data.judge.given(), dict(data.tests), bars, baseline)
