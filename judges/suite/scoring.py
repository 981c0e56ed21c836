"""Scores one unit test: each verdict checked against its condition, PA and NR derived on both sides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.judging.records import MetricRecord
from judges.suite.conditions import Condition, expected_pa_nr, judged_pa_nr
from judges.types import ALL_METRICS, Outcome, UnitTest, Verdict


@dataclass
class TestResult:
    """One unit test's records, conditions and outcomes over the six metrics."""

    test: UnitTest
    records: dict[str, MetricRecord]
    verdicts: dict[str, Verdict]
    conditions: dict[str, Condition]
    outcomes: dict[str, Outcome]

    def metrics_dict(self) -> dict[str, Any]:
        """Per metric: the condition, the outcome, and the record (verdict, details, calls)."""
        metrics = {}
        for metric in ALL_METRICS:
            entry: dict[str, Any] = {"condition": str(self.conditions[metric]), "outcome": self.outcomes[metric].value}
            if metric in self.records:
                entry.update(self.records[metric].to_dict())
            else:
                entry["verdict"] = self.verdicts[metric].to_dict()
            metrics[metric] = entry
        return metrics


def score_unit_test(test: UnitTest, records: dict[str, MetricRecord]) -> TestResult:
    """Check each verdict against its condition, deriving PA and NR on both sides."""
    verdicts = {metric: record.verdict for metric, record in records.items()}
    verdicts["positive_acceptance"], verdicts["negative_rejection"] = judged_pa_nr(
        verdicts["answer_relevancy"], verdicts["completeness"]
    )
    conditions = dict(test.conditions)
    conditions["positive_acceptance"], conditions["negative_rejection"] = expected_pa_nr(
        test.conditions["answer_relevancy"], test.conditions["completeness"]
    )
    outcomes = {metric: conditions[metric].check(verdicts[metric]) for metric in ALL_METRICS}
    return TestResult(test, records, verdicts, conditions, outcomes)
