"""The summary's per-metric and per-test-type figures, typed (`judges.records` re-exports them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.records.draws import MetricStability, Stability
from judges.records.usage import Usage, known_fields


@dataclass(frozen=True)
class MetricSummary:
    """One metric over the first draw: verdict counts, the graded mean, usage; for unit tests also the outcomes
    (rates over the tests that completed; run failures counted beside, never as wrong grades)."""

    n: int = 0
    graded: int = 0
    null: int = 0
    not_applicable: int = 0
    failed: int = 0
    failure_kinds: dict[str, int] = field(default_factory=dict)
    mean: float | None = None
    stdev: float | None = None
    usage: Usage = field(default_factory=Usage)
    completed: int | None = None
    passed: int | None = None
    wrong_grades: int | None = None
    failures: int | None = None
    pass_rate: float | None = None
    wrong_grade_rate: float | None = None
    failure_rate: float | None = None
    # the commonest grade and how many graded verdicts gave it (a near-constant judge's sign); absent from folders
    # written before them, so not compared: such a folder's summary still equals the recount of its records
    top_grade: float | None = field(default=None, compare=False)
    top_grade_count: int | None = field(default=None, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricSummary:
        return cls(**{**known_fields(cls, data), "usage": Usage.from_json(data.get("usage"))})


@dataclass(frozen=True)
class TypeSummary:
    """The pass rate of each metric over one test type's tests, and their mean."""

    n: int
    pass_rates: dict[str, float | None]
    total: float | None
    failures: int = 0  # verdicts that failed, left out of the rates


@dataclass(frozen=True)
class OutcomeSummary:
    """The figures of a run whose items pass or fail (a kind with the `outcomes` trait): the total (the mean of the
    metrics' pass rates), how many items completed and passed every metric, wrong grades and failed verdicts, the
    rates per item type, and how outcomes held over repeated draws."""

    total_pass_rate: float | None = None
    completed_tests: int | None = None
    tests_passing_all: int | None = None
    wrong_grades: int | None = None
    failures: int | None = None
    by_test_type: dict[str, TypeSummary] = field(default_factory=dict)
    stability: Stability | None = None

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


OUTCOME_KEYS = tuple(f.name for f in dataclasses.fields(OutcomeSummary))  # written in this order after `usage`
