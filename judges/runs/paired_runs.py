"""Paired statistics of two runs over the items they share: per metric, the outcomes that flipped each way, an exact
McNemar test on them (unit tests), and a paired bootstrap of the difference in pass rate or mean grade."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.runs.run import Run
from judges.types import Outcome


@dataclass(frozen=True)
class PairedMetric:
    metric: str
    n: int  # items with a value in both runs
    before: float | None  # pass rate (unit tests) or mean grade over those items
    after: float | None
    gained: int  # unit tests: not passed -> passed; other runs: grade went up
    lost: int
    mcnemar_p: float | None  # exact two-sided McNemar (binomial on the discordant pairs); unit tests only
    difference: float | None  # mean of (after - before) with its paired bootstrap interval
    low: float | None
    high: float | None


def _values(run: Run, metric: str) -> dict[str, float]:
    out = {}
    for record in run.iter_records():
        entry = record.metrics.get(metric) if record.draw == 0 else None
        if entry is None:
            continue
        if run.kind == "unit_tests":
            if entry.outcome in (Outcome.PASS, Outcome.WRONG_GRADE):  # a run failure is no value, never a miss
                out[record.id] = 1.0 if entry.outcome is Outcome.PASS else 0.0
        elif entry.value is not None:
            out[record.id] = entry.value
    return out


def paired_metrics(before: Run, after: Run) -> list[PairedMetric]:
    """One row per metric the two runs share (same kind expected), in `before`'s metric order."""
    from judges.leaderboard.paired import paired_difference

    metrics = [m for m in before.summary.metrics if m in after.summary.metrics]
    rows = []
    for metric in metrics:
        a, b = _values(before, metric), _values(after, metric)
        shared = sorted(set(a) & set(b))
        a = {k: a[k] for k in shared}
        b = {k: b[k] for k in shared}
        gained = sum(b[k] > a[k] for k in shared)
        lost = sum(b[k] < a[k] for k in shared)
        p = None
        if before.kind == after.kind == "unit_tests" and gained + lost:
            from scipy.stats import binomtest

            p = float(binomtest(gained, gained + lost, 0.5).pvalue)
        elif before.kind == after.kind == "unit_tests" and shared:
            p = 1.0
        diff = paired_difference(b, a)
        rows.append(
            PairedMetric(
                metric,
                len(shared),
                sum(a.values()) / len(shared) if shared else None,
                sum(b.values()) / len(shared) if shared else None,
                gained,
                lost,
                p,
                diff.mean if diff else None,
                diff.low if diff else None,
                diff.high if diff else None,
            )
        )
    return rows


def as_dict(row: PairedMetric) -> dict[str, Any]:
    return dict(row.__dict__)
