"""The validation gate: bars on a meta-eval report (minimum pass rates, maximum failure rate), and JUnit XML."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.toml_config import read_toml, validate_config
from judges.types import ALL_METRICS

MIN_TARGETS = (*ALL_METRICS, "total")
MAX_TARGETS = ("format_failure_rate",)


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
        allowed = MIN_TARGETS if kind == "min" else MAX_TARGETS
        if not sep or target.strip() not in allowed:
            raise ConfigError(f"bad --{kind} {text!r}: expected NAME=VALUE with NAME one of {', '.join(allowed)}")
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


def measure(summary: dict[str, Any], target: str) -> float | None:
    if target == "total":
        return summary["total_pass_rate"]
    if target == "format_failure_rate":
        judged = [summary["metrics"][m] for m in ALL_METRICS[:4]]
        n = sum(stats["n"] for stats in judged)
        return sum(stats["format_failures"] for stats in judged) / n if n else None
    return summary["metrics"][target]["pass_rate"]


def check_bars(summary: dict[str, Any], bars: list[Bar]) -> list[BarResult]:
    return [BarResult(bar, measure(summary, bar.target)) for bar in bars]


def junit_xml(results: list[BarResult], suite: str, path: Path) -> None:
    """One test case per bar; a missed bar is a <failure> with the measured value."""
    import xml.etree.ElementTree as ET

    failures = sum(not r.passed for r in results)
    root = ET.Element("testsuites")
    element = ET.SubElement(root, "testsuite", name=suite, tests=str(len(results)), failures=str(failures))
    for result in results:
        case = ET.SubElement(element, "testcase", classname=suite, name=result.bar.name)
        if not result.passed:
            failure = ET.SubElement(case, "failure", message=result.describe())
            failure.text = result.describe()
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


@dataclass
class GateConfig:
    """A validation config (TOML): the judge, the unit tests, and the bars."""

    judge: dict[str, Any] = field(default_factory=dict)
    tests: dict[str, Any] = field(default_factory=dict)
    bars: list[Bar] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> GateConfig:
        from judges.runs.gate_schema import GateFile

        raw = read_toml(path)
        data = validate_config(GateFile, raw, path)
        bars = [Bar(k, float(v), kind) for kind in ("min", "max") for k, v in raw.get(kind, {}).items()]  # file order
        if not bars:
            raise ConfigError(f"{path}: no bars: add a [min] table, e.g. total = 0.8")
        return cls(dict(data.judge), dict(data.tests), bars)
