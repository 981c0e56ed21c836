"""The summary's per-metric figures, typed (`judges.records` re-exports them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
