"""The unit-test kind's tally (its `summarize` hook): told every record, it counts each metric's outcomes, the tests
completed and passing every metric, the outcomes per test type, and each test's draws (for stability and the
consistency over draws), keeping a few numbers per test, never the records."""

from __future__ import annotations

import dataclasses
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from judges.records import ItemRecord, MetricStability, Stability, Summary
from judges.runs.summarizer import draw_consistency_of
from judges.suite.outcome_summary import OutcomeSummary, TypeSummary, outcomes_of
from judges.types import ALL_METRICS, Outcome, Verdict


def outcome_rates(count: Mapping[Outcome | None, int]) -> dict[str, Any]:
    """Pass and wrong-grade rates over the tests that completed; run failures counted beside, never as wrong."""
    completed = count.get(Outcome.PASS, 0) + count.get(Outcome.WRONG_GRADE, 0)
    total = sum(count.values())
    return {
        "completed": completed,
        "passed": count.get(Outcome.PASS, 0),
        "wrong_grades": count.get(Outcome.WRONG_GRADE, 0),
        "failures": count.get(Outcome.FAILURE, 0),
        "pass_rate": count.get(Outcome.PASS, 0) / completed if completed else None,
        "wrong_grade_rate": count.get(Outcome.WRONG_GRADE, 0) / completed if completed else None,
        "failure_rate": count.get(Outcome.FAILURE, 0) / total if total else None,
    }


class OutcomeTally:
    """The unit-test run's figures as records come (`add_draw` every record, `add` the first draw's)."""

    def __init__(self) -> None:
        self.completed_tests = self.tests_passing_all = 0
        self.outcomes: dict[str, Counter[Outcome | None]] = {}  # per metric, over the first draw
        self.by_type: dict[str, list[Counter[Outcome | None]]] = {}
        self.type_metrics: dict[str, list[str]] = {}
        self.draws: dict[str, dict[str, list[tuple[float | None, bool, Verdict]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self.asked: set[tuple[str, str]] = set()  # (test, metric) asked of the judge in some draw

    def add_draw(self, record: ItemRecord) -> None:
        for metric, entry in record.metrics.items():
            self.draws[record.id][metric].append((entry.value, entry.outcome is Outcome.PASS, entry.verdict))
            if entry.calls:
                self.asked.add((record.id, metric))

    def add(self, record: ItemRecord) -> None:
        for metric, entry in record.metrics.items():
            self.outcomes.setdefault(metric, Counter())[entry.outcome] += 1
        self.completed_tests += all(e.outcome is not Outcome.FAILURE for e in record.metrics.values())
        self.tests_passing_all += record.passed_all
        test_type = record.test_type or "-"
        if test_type not in self.by_type:
            self.type_metrics[test_type] = [m for m in ALL_METRICS if m in record.metrics]
            self.by_type[test_type] = [Counter() for _ in self.type_metrics[test_type]]
        for counter, metric in zip(self.by_type[test_type], self.type_metrics[test_type], strict=True):
            counter[record.metrics[metric].outcome] += 1

    def result(self) -> OutcomeSummary:
        return outcomes_of(self.summarize(Summary()).part)

    def summarize(self, common: Summary) -> Summary:
        """The run's summary: the common figures, each metric's outcome rates, the part and the tests' consistency."""
        metrics = {
            name: dataclasses.replace(m, **outcome_rates(self.outcomes.get(name, Counter())))
            for name, m in common.metrics.items()
        }
        rates = [m.pass_rate for m in metrics.values() if m.pass_rate is not None]
        part = OutcomeSummary(
            total_pass_rate=statistics.fmean(rates) if rates else None,
            completed_tests=self.completed_tests,
            tests_passing_all=self.tests_passing_all,
            wrong_grades=sum(m.wrong_grades or 0 for m in metrics.values()),
            failures=sum(m.failures or 0 for m in metrics.values()),
            by_test_type=self._by_test_type(),
            stability=self._stability(),
        )
        consistency = draw_consistency_of(self._test_draws())
        return dataclasses.replace(common, metrics=metrics, consistency=consistency, part=part)

    def _by_test_type(self) -> dict[str, TypeSummary]:
        out = {}
        for test_type in sorted(self.by_type):
            counters = self.by_type[test_type]
            rates = {
                m: outcome_rates(c)["pass_rate"] for m, c in zip(self.type_metrics[test_type], counters, strict=True)
            }
            defined = [v for v in rates.values() if v is not None]
            n = sum(counters[0].values()) if counters else 0
            failures = sum(c[Outcome.FAILURE] for c in counters)
            out[test_type] = TypeSummary(n, rates, statistics.fmean(defined) if defined else None, failures)
        return out

    def _stability(self) -> Stability | None:
        """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
        repeated = [per_metric for per_metric in self.draws.values() if max(map(len, per_metric.values())) > 1]
        if not repeated:
            return None
        names = list(dict.fromkeys(m for per_metric in self.draws.values() for m in per_metric))
        out: dict[str, MetricStability] = {}
        for metric in names:
            variances, flips = [], 0
            for per_metric in repeated:
                draws = per_metric[metric]
                graded = [g for g, _, _ in draws if g is not None]
                if len(graded) > 1:
                    variances.append(statistics.pvariance(graded))
                flips += len({passed for _, passed, _ in draws}) > 1
            out[metric] = MetricStability(statistics.fmean(variances) if variances else None, flips / len(repeated))
        most = max(max(map(len, per_metric.values())) for per_metric in repeated)
        return Stability(len(repeated), most, out)

    def _test_draws(self) -> dict[str, list[list[Verdict]]]:
        """Per metric, each unit test's verdicts over its draws (one record per draw)."""
        out: dict[str, list[list[Verdict]]] = defaultdict(list)
        for test, per_metric in self.draws.items():
            for metric, draws in per_metric.items():
                if (test, metric) in self.asked:  # a metric the pipeline never asked in any draw: not counted
                    out[metric].append([verdict for _, _, verdict in draws])
        return out


def stability(records: Iterable[ItemRecord]) -> Stability | None:
    """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
    tally = OutcomeTally()
    for record in records:
        tally.add_draw(record)
    return tally._stability()
