"""The one summarizer of a run's records, fed one record at a time (so a run never holds them all): verdict counts
per metric, usage and consistency over draws; a kind's own figures come from its tally (`summarize` of
`judges.runs.kinds`)."""

from __future__ import annotations

import heapq
import statistics
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from judges.records import Consistency, ItemRecord, MetricRecord, MetricSummary, Summary
from judges.records.usage import UsageTotals
from judges.runs.kinds import Tally, kind_of
from judges.types import Verdict, VerdictState

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
        self.usage.add(entry.calls)

    def result(self) -> MetricSummary:
        grades = self.grades
        top_grade, top_count = Counter(grades).most_common(1)[0] if grades else (None, None)
        return MetricSummary(
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


class SummaryBuilder:
    """Told each finished record (`add`), in any order; `result()` is the run's Summary. It keeps counts and the
    first draw's grades as floats, never the records themselves; a kind's tally, when it has one, is told each
    record too (`add_draw` every draw's, when it counts them; `add` the first draw's) and finishes the summary."""

    def __init__(self, kind: str) -> None:
        self.kind = kind_of(kind)
        self.part: Tally | None = self.kind.tally()  # a kind's own figures, as records come
        self.add_draw = getattr(self.part, "add_draw", None)
        self.n_items = 0
        self.metrics: dict[str, MetricTotals] = {}
        self.usage = UsageTotals()
        self.drawn: dict[str, list[list[Verdict]]] = defaultdict(list)  # --draws K: per metric, each item's draws

    def add(self, record: ItemRecord) -> None:
        self.usage.add(record.calls())
        if self.add_draw is not None:
            self.add_draw(record)
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

    def result(self) -> Summary:
        metrics = {name: totals.result() for name, totals in self.metrics.items()}
        common = Summary(self.n_items, metrics, self.usage.result(), consistency=draw_consistency_of(self.drawn))
        return common if self.part is None else self.kind.summarize(self.part, common)


def draw_consistency_of(drawn: Mapping[str, list[list[Verdict]]]) -> Consistency | None:
    """With more than one draw of some item: per metric, how often its verdict changes, and its self-agreement."""
    most = max((len(draws) for items in drawn.values() for draws in items), default=0)
    if most < 2:
        return None
    from judges.stats.self_agreement import draw_consistency  # defers numpy

    return Consistency(most, {metric: draw_consistency(items) for metric, items in drawn.items()})


def summarize(records: Iterable[ItemRecord], kind: str) -> Summary:
    """Everything a report shows, computed from the records alone (so a summary always matches its results.jsonl).

    Every run: per metric, the verdict counts and mean grade, and usage; a kind with a tally also its own figures
    (the unit-test kind's pass rates, per test type and stability over repeated draws: `judges.suite.outcome_tally`).
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


def first_records(records: Iterable[ItemRecord], limit: int) -> list[ItemRecord]:
    """The first `limit` first-draw records in item order, from records streamed in any order, holding at most
    `limit` of them; the stream is left as soon as the kept ones are items 0 .. limit-1 (item orders are distinct
    and start at 0), which, as items finish about in order, is near the start of results.jsonl."""
    kept: list[tuple[int, int, ItemRecord]] = []  # a max-heap on the order (negated), ties by arrival
    if limit < 1:
        return []
    for arrival, record in enumerate(r for r in records if r.draw == 0):
        if len(kept) < limit:
            heapq.heappush(kept, (-record.order, arrival, record))
        elif record.order < -kept[0][0]:
            heapq.heapreplace(kept, (-record.order, arrival, record))
        if len(kept) == limit and -kept[0][0] == limit - 1:
            break
    return [record for _, _, record in sorted(kept, key=lambda k: (-k[0], k[1]))]
