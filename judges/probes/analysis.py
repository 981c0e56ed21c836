"""Pairs each perturbed item with its original and scores, per probe and metric, how often the judge did what the
probe declares (kept the grade, swapped it, or lowered it), with Wilson intervals and the oracle and constant
baselines computed by the same rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judges.judging.replies import GRADE_SPECS
from judges.probes.base import INVARIANCE, LOWER, ORIGINAL, SAME, SWAPPED
from judges.probes.summary import ProbeMiss, ProbeRow, ProbeSummary
from judges.records import ItemRecord, MetricRecord
from judges.runs.intervals import wilson
from judges.types import VerdictState

HELD, MISSED, FAILED, SKIPPED = "held", "missed", "failed", "skipped"


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
    the pair says nothing (a verdict not asked for, answer 1 not graded, or a grade already at the floor)."""
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
    floor = GRADE_SPECS[metric][1][0]
    state, grade = before.actual or ("null", None)
    if state != "grade" or grade is None or grade <= floor:
        return SKIPPED
    moved = after.actual is not None and after.actual[0] == "grade" and float(after.actual[1] or 0) < grade
    return HELD if moved else MISSED


def _baseline(metric: str, expects: str, oracle: bool) -> str:
    """The outcome of a judge that grades everything the top grade (constant), or as the probe declares (oracle)."""
    top = float(GRADE_SPECS[metric][1][-1])
    before = Given(("grade", top), ("grade", top))
    lowered = top - 1 if oracle and expects == LOWER else top
    return compare(metric, expects, before, Given(("grade", lowered), ("grade", top)))


def probe_summary(records: Sequence[ItemRecord]) -> ProbeSummary:
    """Per probe and metric: the rate (invariance, or the right direction) with its Wilson interval and n, the
    failures counted apart, the oracle's and a constant judge's rates on the same pairs, and the items missed."""
    from judges.probes.registry import shipped_probes

    declared = {probe.name: probe.expects for probe in shipped_probes()}
    first = [r for r in records if r.draw == 0 and r.sample_id is not None]
    originals = {r.sample_id: r for r in first if r.probe == ORIGINAL}
    rows = []
    for name, expects in declared.items():
        pairs = [(originals[r.sample_id], r) for r in first if r.probe == name and r.sample_id in originals]
        if not pairs:
            continue
        for metric, expectation in expects.items():
            outcomes = [
                (
                    before,
                    after,
                    compare(metric, expectation, given(before.metrics.get(metric)), given(after.metrics.get(metric))),
                )
                for before, after in pairs
            ]
            counted = [o for o in outcomes if o[2] in (HELD, MISSED)]
            held = sum(o[2] == HELD for o in counted)
            low, high = wilson(held, len(counted))
            rows.append(
                ProbeRow(
                    probe=name,
                    metric=metric,
                    expects=expectation,
                    measures="invariance" if expectation in INVARIANCE else "sensitivity",
                    held=held,
                    n=len(counted),
                    rate=held / len(counted) if counted else None,
                    low=low,
                    high=high,
                    failed=sum(o[2] == FAILED for o in outcomes),
                    pairs=len(pairs),
                    oracle=1.0 if _baseline(metric, expectation, oracle=True) == HELD else 0.0,
                    constant=1.0 if _baseline(metric, expectation, oracle=False) == HELD else 0.0,
                    missed=[
                        ProbeMiss(b.id, a.id, _shown(b, metric), _shown(a, metric))
                        for b, a, outcome in outcomes
                        if outcome == MISSED
                    ],
                )
            )
    return ProbeSummary(rows, len(originals))


def _shown(record: ItemRecord, metric: str) -> str:
    """`answer 2 / answer 1` grades as the report shows them, e.g. "4 / 5" or "null"."""
    found = given(record.metrics.get(metric))
    if found is None:
        return "not asked"
    if found.failed:
        return "failure"

    def one(pair: tuple[str, float | None] | None) -> str:
        if pair is None:
            return "-"
        return "null" if pair[0] != "grade" else f"{pair[1]:g}"

    return one(found.actual) + (f" (answer 1: {one(found.expected)})" if found.expected is not None else "")


__all__ = ["FAILED", "HELD", "MISSED", "SAME", "SKIPPED", "SWAPPED", "compare", "given", "probe_summary"]
