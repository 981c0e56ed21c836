"""The one summarizer of a run's records, fed one record at a time (so a run never holds them all): verdict counts
per metric, unit-test outcomes, usage, by test type and stability."""

from __future__ import annotations

import statistics
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.records import (
    Consistency,
    ItemRecord,
    MetricRecord,
    MetricStability,
    MetricSummary,
    OutcomeSummary,
    Stability,
    Summary,
    TypeSummary,
)
from judges.records.usage import UsageTotals
from judges.runs.kinds import Tally, kind_of
from judges.types import ALL_METRICS, Outcome, Verdict, VerdictState

SHORT = {
    "answer_relevancy": "AR",
    "completeness": "C",
    "faithfulness": "F",
    "usefulness": "U",
    "positive_acceptance": "PA",
    "negative_rejection": "NR",
}


@dataclass
class MetricTotals:
    """One metric's running counts over the first draw; grades kept as 8-byte floats for the exact mean."""

    n: int = 0
    null: int = 0
    not_applicable: int = 0
    grades: array[float] = field(default_factory=lambda: array("d"))
    kinds: Counter[str | None] = field(default_factory=Counter)
    outcomes: Counter[Outcome | None] = field(default_factory=Counter)
    usage: UsageTotals = field(default_factory=UsageTotals)

    def add(self, entry: MetricRecord) -> None:
        self.n += 1
        verdict = entry.verdict
        if verdict.state is VerdictState.GRADE and verdict.grade is not None:
            self.grades.append(verdict.grade)
        elif verdict.state is VerdictState.NULL:
            self.null += 1
        elif verdict.state is VerdictState.FAILURE:
            self.kinds[verdict.failure_kind.value if verdict.failure_kind else None] += 1
        self.not_applicable += not entry.applicable
        self.outcomes[entry.outcome] += 1
        self.usage.add(entry.calls)

    def result(self, unit_tests: bool) -> MetricSummary:
        grades = self.grades
        top_grade, top_count = Counter(grades).most_common(1)[0] if grades else (None, None)
        counts = MetricSummary(
            n=self.n,
            graded=len(grades),
            null=self.null - self.not_applicable,
            not_applicable=self.not_applicable,
            failed=sum(self.kinds.values()),
            failure_kinds={str(k): v for k, v in sorted(self.kinds.items(), key=lambda kv: str(kv[0]))},
            mean=statistics.fmean(grades) if grades else None,
            stdev=statistics.stdev(grades) if len(grades) > 1 else None,
            usage=self.usage.result(),
            top_grade=top_grade,
            top_grade_count=top_count,
        )
        if not unit_tests:
            return counts
        return MetricSummary(**{**vars(counts), **outcome_rates(self.outcomes)})


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


class SummaryBuilder:
    """Told each finished record (`add`), in any order; `result()` is the run's Summary. It keeps counts, the
    first draw's grades as floats, and for a kind whose items pass or fail (`outcomes`) a few numbers per item (for
    the breakdown by type and the stability over draws), never the records themselves. `outcomes` given: counted
    so whatever the kind."""

    def __init__(self, kind: str, outcomes: bool | None = None) -> None:
        traits = kind_of(kind)
        self.unit_tests = traits.outcomes if outcomes is None else outcomes
        parts = traits.parts
        self.part: Tally | None = parts.tally() if parts is not None else None  # a kind's own part, as records come
        self.n_items = self.completed_tests = self.tests_passing_all = 0
        self.metrics: dict[str, MetricTotals] = {}
        self.usage = UsageTotals()
        self.by_type: dict[str, list[Counter[Outcome | None]]] = {}
        self.type_metrics: dict[str, list[str]] = {}
        self.draws: dict[str, dict[str, list[tuple[float | None, bool, Verdict]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self.drawn: dict[str, list[list[Verdict]]] = defaultdict(list)  # --draws K: per metric, each item's draws
        self.asked: set[tuple[str, str]] = set()  # unit tests: (test, metric) asked of the judge in some draw

    def add(self, record: ItemRecord) -> None:
        self.usage.add(record.calls())
        if self.unit_tests:
            for metric, entry in record.metrics.items():
                self.draws[record.id][metric].append((entry.value, entry.outcome is Outcome.PASS, entry.verdict))
                if entry.calls:
                    self.asked.add((record.id, metric))
        for metric, entry in record.metrics.items():
            if entry.draws is not None and entry.calls:  # a metric the pipeline never asked in any draw: not counted
                self.drawn[metric].append(entry.draws)
        if record.draw != 0:
            return
        if self.part is not None:
            self.part.add(record)
        self.n_items += 1
        for metric, entry in record.metrics.items():
            self.metrics.setdefault(metric, MetricTotals()).add(entry)
        if self.unit_tests:
            self.completed_tests += all(e.outcome is not Outcome.FAILURE for e in record.metrics.values())
            self.tests_passing_all += record.passed_all
            test_type = record.test_type or "-"
            if test_type not in self.by_type:
                self.type_metrics[test_type] = [m for m in ALL_METRICS if m in record.metrics]
                self.by_type[test_type] = [Counter() for _ in self.type_metrics[test_type]]
            for counter, metric in zip(self.by_type[test_type], self.type_metrics[test_type], strict=True):
                counter[record.metrics[metric].outcome] += 1

    def result(self) -> Summary:
        metrics = {name: totals.result(self.unit_tests) for name, totals in self.metrics.items()}
        usage = self.usage.result()
        if self.part is not None:
            return Summary(self.n_items, metrics, usage, part=self.part.result())
        if not self.unit_tests:
            return Summary(self.n_items, metrics, usage, consistency=self._consistency(self.drawn))
        rates = [m.pass_rate for m in metrics.values() if m.pass_rate is not None]
        outcomes = OutcomeSummary(
            total_pass_rate=statistics.fmean(rates) if rates else None,
            completed_tests=self.completed_tests,
            tests_passing_all=self.tests_passing_all,
            wrong_grades=sum(m.wrong_grades or 0 for m in metrics.values()),
            failures=sum(m.failures or 0 for m in metrics.values()),
            by_test_type=self._by_test_type(),
            stability=self._stability(),
        )
        return Summary(self.n_items, metrics, usage, outcomes, consistency=self._consistency(self._test_draws()))

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

    @staticmethod
    def _consistency(drawn: Mapping[str, list[list[Verdict]]]) -> Consistency | None:
        """With more than one draw of some item: per metric, how often its verdict changes, and its self-agreement."""
        most = max((len(draws) for items in drawn.values() for draws in items), default=0)
        if most < 2:
            return None
        from judges.stats.self_agreement import draw_consistency  # defers numpy

        return Consistency(most, {metric: draw_consistency(items) for metric, items in drawn.items()})


def summarize(records: Iterable[ItemRecord], kind: str) -> Summary:
    """Everything a report shows, computed from the records alone (so a summary always matches its results.jsonl).

    Every run: per metric, the verdict counts and mean grade, and usage. A kind whose items pass or fail (unit
    tests: records with outcomes) also gets pass / wrong-grade rates over completed tests, failure counts, the total (mean of the metrics' pass
    rates), per test type, and stability over repeated draws.
    """
    builder = SummaryBuilder(kind)
    for record in records:
        builder.add(record)
    return builder.result()


def metric_names(records: Iterable[ItemRecord]) -> list[str]:
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.metrics))
    return list(names)


def median_latency(records: Sequence[ItemRecord]) -> float | None:
    """Median seconds per answered call, as measured when each reply was made (the cache keeps that latency), so
    a warm cache does not make a judge look fast; None when no call recorded one."""
    latencies = [c["latency_s"] for r in records for c in r.calls() if "error" not in c and c.get("latency_s")]
    return statistics.median(latencies) if latencies else None


def stability(records: Iterable[ItemRecord]) -> Stability | None:
    """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
    builder = SummaryBuilder("", outcomes=True)
    for record in records:
        builder.add(record)
    return builder.result().stability
