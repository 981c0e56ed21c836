"""Paired statistics of two runs over the items they share: per metric, the outcomes that flipped each way, an exact
McNemar test on them (unit tests), and a paired bootstrap of the difference in pass rate or mean grade."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.runs.run import Run


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
    for record in run.records:
        entry = record["metrics"].get(metric) if record.get("draw", 0) == 0 else None
        if entry is None:
            continue
        if run.kind == "unit_tests":
            if entry.get("outcome") in ("pass", "wrong_grade"):  # a run failure is no value, never a miss
                out[str(record["id"])] = 1.0 if entry["outcome"] == "pass" else 0.0
        elif entry["verdict"].get("state") == "grade":
            out[str(record["id"])] = float(entry["verdict"]["grade"])
    return out


def paired_metrics(before: Run, after: Run) -> list[PairedMetric]:
    """One row per metric the two runs share (same kind expected), in `before`'s metric order."""
    from judges.leaderboard.paired import paired_difference

    metrics = [m for m in before.summary.get("metrics", {}) if m in after.summary.get("metrics", {})]
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
