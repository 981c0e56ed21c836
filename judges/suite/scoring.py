"""Scores one unit test: each verdict checked against its condition, PA and NR derived on both sides."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from judges.records import MetricRecord
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

    def metric_records(self) -> dict[str, MetricRecord]:
        """Per metric: the record (verdict, details, calls; a derived metric has only its verdict) with the condition
        it was checked against and the outcome."""
        return {
            metric: dataclasses.replace(
                self.records.get(metric) or MetricRecord(metric, self.verdicts[metric]),
                condition=str(self.conditions[metric]),
                outcome=self.outcomes[metric],
            )
            for metric in ALL_METRICS
        }


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
