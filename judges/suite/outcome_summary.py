"""The unit-test kind's part of a run's summary, typed: the total pass rate, the tests completed and passing every
metric, the pass rates per test type and how outcomes held over repeated draws (under `unit_tests` in run.json)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.records.draws import MetricStability, Stability
from judges.records.usage import known_fields

UNIT_TESTS = "unit_tests"  # the kind's name, as run.json gives it and as its part's key


@dataclass(frozen=True)
class TypeSummary:
    """The pass rate of each metric over one test type's tests, and their mean."""

    n: int
    pass_rates: dict[str, float | None]
    total: float | None
    failures: int = 0  # verdicts that failed, left out of the rates


@dataclass(frozen=True)
class OutcomeSummary:
    """The figures of a unit-test run: the total (the mean of the metrics' pass rates), how many tests completed and
    passed every metric, wrong grades and failed verdicts, the rates per test type, and how outcomes held over
    repeated draws."""

    total_pass_rate: float | None = None
    completed_tests: int | None = None
    tests_passing_all: int | None = None
    wrong_grades: int | None = None
    failures: int | None = None
    by_test_type: dict[str, TypeSummary] = field(default_factory=dict)
    stability: Stability | None = None

    @property
    def kind(self) -> str:
        return UNIT_TESTS

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OutcomeSummary:
        stability = data.get("stability")
        return cls(
            **{
                **known_fields(cls, data),
                "by_test_type": {
                    t: TypeSummary(**known_fields(TypeSummary, s)) for t, s in (data.get("by_test_type") or {}).items()
                },
                "stability": None
                if not stability
                else Stability(
                    stability["tests"],
                    stability["draws"],
                    {m: MetricStability(**known_fields(MetricStability, s)) for m, s in stability["metrics"].items()},
                ),
            }
        )


def legacy_part(summary: Mapping[str, Any]) -> OutcomeSummary | None:
    """The part of a run.json written before parts sat under their kind's key: its fields were the summary's own."""
    part = OutcomeSummary.from_json(summary)
    return None if part == OutcomeSummary() else part


def outcomes_of(part: object) -> OutcomeSummary:
    """A unit-test run's part (an empty one when the run has none, e.g. it stopped before any test finished)."""
    return part if isinstance(part, OutcomeSummary) else OutcomeSummary()
