"""MetricRecord: one metric's verdict on one item, its intermediate steps and the judge calls behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judges.types import Verdict, VerdictState

CALL_TOTALS = ("prompt_tokens", "completion_tokens", "cost", "latency_s")


@dataclass
class MetricRecord:
    """The verdict (a grade, a legitimate null, or a failure with its kind), the metric's intermediate record
    (claims, verdicts, generated questions, the grade of the reference answer, ...) and every call it made
    (template, prompt hash, raw reply or error, tokens, cost, latency, cache hit)."""

    metric: str
    verdict: Verdict
    details: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    applicable: bool = True

    @classmethod
    def not_applicable(cls, metric: str, missing: list[str]) -> MetricRecord:
        reason = f"not applicable: the sample has no {', '.join(missing)}"
        return cls(metric, Verdict.null(reason), applicable=False)

    @property
    def value(self) -> float | None:
        return self.verdict.grade if self.verdict.state is VerdictState.GRADE else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict.to_dict()}
        if not self.applicable:
            out["applicable"] = False
        if self.details:
            out["details"] = self.details
        out["calls"] = self.calls
        return out
