"""Pairs each perturbed item with its original as the records come and scores, per probe and metric, how often the
judge did what the probe declares (kept the grade, swapped it, or lowered it), with Wilson intervals and the oracle
and constant baselines computed by the same rule."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass

from judges.judging.replies import GRADE_SPECS
from judges.probes.base import LOWER, NOT_HIGHER, ORIGINAL, SAME, SWAPPED
from judges.probes.probe_registry import shipped_probes
from judges.probes.probe_summary import LISTED, ProbeMiss, ProbeRow, ProbeSummary
from judges.records import ItemRecord, MetricRecord
from judges.runs.intervals import wilson
from judges.types import VerdictState

HELD, MISSED, FAILED, SKIPPED = "held", "missed", "failed", "skipped"
MEASURES = {SAME: "invariance", SWAPPED: "invariance", LOWER: "sensitivity", NOT_HIGHER: "bias"}


@dataclass(frozen=True)
class Given:
    """What the judge said on one metric of one item: answer 2's verdict and, from a two-answer prompt, answer 1's.
    A verdict is (state, grade); None when the prompt gave none."""

    actual: tuple[str, float | None] | None
    expected: tuple[str, float | None] | None
    failed: bool = False


def given(entry: MetricRecord | None) -> Given | None:
    """The judge's verdicts in a record's metric entry; None when the pipeline did not ask (a rule's null)."""
    if entry is None:
        return None
    verdict = entry.verdict
    if verdict.state is VerdictState.FAILURE:
        return Given(None, None, failed=True)
    if not entry.calls:
        return None
    expected = entry.details.get("expected_output_verdict")  # answer 1's verdict, as the reply gave it
    as_pair = (verdict.state.value, verdict.grade)
    other = None if not expected or expected["state"] == "failure" else (expected["state"], expected.get("grade"))
    return Given(as_pair, other)


def compare(metric: str, expects: str, before: Given | None, after: Given | None) -> str:
    """HELD when the judge did what the probe declares, MISSED when not, FAILED when a call failed, SKIPPED when
    the pair says nothing (a verdict not asked for, answer 1 not graded, a grade already at the floor for LOWER or
    at the ceiling for NOT_HIGHER)."""
    if before is None or after is None:
        return SKIPPED
    if before.failed or after.failed:
        return FAILED
    if expects == SAME:
        return HELD if before.actual == after.actual else MISSED
    if expects == SWAPPED:
        if before.expected is None or after.expected is None:
            return SKIPPED
        return HELD if (before.actual, before.expected) == (after.expected, after.actual) else MISSED
    state, grade = before.actual or ("null", None)
    if expects == NOT_HIGHER:
        if state != "grade" or grade is None or grade >= GRADE_SPECS[metric][1][-1]:
            return SKIPPED  # a grade at the ceiling cannot reveal a judge that raises it
        kept = after.actual is not None and after.actual[0] == "grade" and float(after.actual[1] or 0) <= grade
        return HELD if kept else MISSED
    if state != "grade" or grade is None or grade <= GRADE_SPECS[metric][1][0]:
        return SKIPPED
    moved = after.actual is not None and after.actual[0] == "grade" and float(after.actual[1] or 0) < grade
    return HELD if moved else MISSED


def _baseline(metric: str, expects: str, oracle: bool) -> str:
    """The outcome of a judge that grades everything the top grade (constant), or as the probe declares (oracle)."""
    top = float(GRADE_SPECS[metric][1][-1])
    if expects == NOT_HIGHER:  # the top grade could not show a raise: both judges keep one below it
        kept = Given(("grade", top - 1), ("grade", top))
        return compare(metric, expects, kept, kept)
    before = Given(("grade", top), ("grade", top))
    lowered = top - 1 if oracle and expects == LOWER else top
    return compare(metric, expects, before, Given(("grade", lowered), ("grade", top)))


@dataclass(frozen=True)
class Seen:
    """What pairing keeps of a first-draw item of a probe run: its id and probe, when it came (the report lists the
    pairs missed in the order their perturbed items finished), and the judge's verdicts on the declared metrics."""

    id: str
    probe: str
    arrival: int
    verdicts: dict[str, Given | None]


class ProbeTally:
    """Told each finished record of a probe run (`add`, in any order), it pairs each perturbed item with its
    original as soon as both are in, so a probe run holds none of its records: it keeps each original's verdicts, a
    perturbed item's only until its original comes, and per probe and metric the outcomes counted and the first
    LISTED pairs missed. `result()` is the summary per probe and metric: the rate (invariance, or the right
    direction) with its Wilson interval and n, the failures counted apart, the oracle's and a constant judge's rates
    on the same pairs, and those pairs missed. A sample id names one sample (the loaders refuse duplicate ids)."""

    def __init__(self) -> None:
        self.declared = {probe.name: dict(probe.expects) for probe in shipped_probes()}
        self.metrics = list(dict.fromkeys(m for expects in self.declared.values() for m in expects))
        self.originals: dict[str, Seen] = {}  # by sample id
        self.waiting: dict[str, list[Seen]] = {}  # perturbed items whose original has not come yet, by sample id
        self.pairs: Counter[str] = Counter()  # by probe
        self.outcomes: dict[tuple[str, str], Counter[str]] = {}  # by probe and metric
        self.missed: dict[tuple[str, str], list[tuple[int, ProbeMiss]]] = {}  # max-heaps on -arrival, LISTED each
        self.arrivals = 0

    def add(self, record: ItemRecord) -> None:
        if record.draw != 0 or record.sample_id is None or record.probe is None:
            return
        if record.probe != ORIGINAL and record.probe not in self.declared:
            return
        metrics = self.metrics if record.probe == ORIGINAL else self.declared[record.probe]
        seen = Seen(record.id, record.probe, self.arrivals, {m: given(record.metrics.get(m)) for m in metrics})
        self.arrivals += 1
        if record.probe == ORIGINAL:
            self.originals[record.sample_id] = seen
            for perturbed in self.waiting.pop(record.sample_id, []):
                self._pair(seen, perturbed)
        elif record.sample_id in self.originals:
            self._pair(self.originals[record.sample_id], seen)
        else:
            self.waiting.setdefault(record.sample_id, []).append(seen)

    def _pair(self, before: Seen, after: Seen) -> None:
        self.pairs[after.probe] += 1
        for metric, expectation in self.declared[after.probe].items():
            outcome = compare(metric, expectation, before.verdicts[metric], after.verdicts[metric])
            self.outcomes.setdefault((after.probe, metric), Counter())[outcome] += 1
            if outcome == MISSED:
                miss = ProbeMiss(before.id, after.id, _shown(before.verdicts[metric]), _shown(after.verdicts[metric]))
                kept = self.missed.setdefault((after.probe, metric), [])
                heapq.heappush(kept, (-after.arrival, miss))
                if len(kept) > LISTED:
                    heapq.heappop(kept)  # the latest to finish

    def result(self) -> ProbeSummary:
        rows = []
        for name, expects in self.declared.items():
            if not self.pairs[name]:
                continue
            for metric, expectation in expects.items():
                counts = self.outcomes.get((name, metric), Counter())
                held, n = counts[HELD], counts[HELD] + counts[MISSED]
                low, high = wilson(held, n)
                rows.append(
                    ProbeRow(
                        probe=name,
                        metric=metric,
                        expects=expectation,
                        measures=MEASURES[expectation],
                        held=held,
                        n=n,
                        rate=held / n if n else None,
                        low=low,
                        high=high,
                        failed=counts[FAILED],
                        pairs=self.pairs[name],
                        oracle=1.0 if _baseline(metric, expectation, oracle=True) == HELD else 0.0,
                        constant=1.0 if _baseline(metric, expectation, oracle=False) == HELD else 0.0,
                        missed=[miss for _, miss in sorted(self.missed.get((name, metric), []), key=lambda m: -m[0])],
                    )
                )
        return ProbeSummary(rows, len(self.originals))


def _shown(found: Given | None) -> str:
    """`answer 2 / answer 1` grades as the report shows them, e.g. "4 / 5" or "null"."""
    if found is None:
        return "not asked"
    if found.failed:
        return "failure"

    def one(pair: tuple[str, float | None] | None) -> str:
        if pair is None:
            return "-"
        return "null" if pair[0] != "grade" else f"{pair[1]:g}"

    return one(found.actual) + (f" (answer 1: {one(found.expected)})" if found.expected is not None else "")


__all__ = ["FAILED", "HELD", "MISSED", "SAME", "SKIPPED", "SWAPPED", "ProbeTally", "compare", "given"]
