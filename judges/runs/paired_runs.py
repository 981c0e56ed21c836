"""Paired statistics of two runs over the items they share: the values that went up and down, McNemar's exact test
on pass/fail pairs (scipy's binomtest on the discordant pairs), and a paired bootstrap of the difference; per
metric (`paired_metrics`, for `compare` and the viewer), or over a test's every metric (`judges.runs.drift`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.runs.kinds import kind_of
from judges.types import Outcome

if TYPE_CHECKING:
    from judges.runs.paired_difference import Difference
    from judges.runs.run import Run


@dataclass(frozen=True)
class Pairs:
    """Two runs' values on the items both have, in `before`'s order: 1.0 for a pass and 0.0 for a miss, or a grade."""

    before: dict[str, float]
    after: dict[str, float]

    @classmethod
    def of(cls, before: Mapping[str, float], after: Mapping[str, float]) -> Pairs:
        shared = [key for key in before if key in after]
        return cls({key: before[key] for key in shared}, {key: after[key] for key in shared})

    @property
    def n(self) -> int:
        return len(self.before)

    def gained(self) -> list[str]:
        """Items whose value went up (unit tests: not passed -> passed), in `before`'s order."""
        return [key for key, value in self.before.items() if self.after[key] > value]

    def lost(self) -> list[str]:
        return [key for key, value in self.before.items() if self.after[key] < value]

    def means(self) -> tuple[float, float] | None:
        """The mean value (a pass rate, for outcomes) before and after; None without a pair."""
        if not self.n:
            return None
        return sum(self.before.values()) / self.n, sum(self.after.values()) / self.n

    def mcnemar_p(self) -> float | None:
        """McNemar's exact two-sided test: the discordant pairs (lost against gained) against a fair coin; 1.0 when
        none is discordant, None without a pair."""
        if not self.n:
            return None
        lost, gained = len(self.lost()), len(self.gained())
        if not lost + gained:
            return 1.0
        from scipy.stats import binomtest

        return float(binomtest(lost, lost + gained, 0.5).pvalue)

    def difference(self) -> Difference | None:
        """The mean of (after - before) with its paired bootstrap interval; None under two pairs."""
        from judges.runs.paired_difference import paired_difference  # defers numpy

        return paired_difference(self.after, self.before)


def outcome_values(run: Run, metric: str | None = None) -> dict[str, float]:
    """Each unit test's outcome on `metric` (first draw), 1.0 passed and 0.0 wrong, by test id; a run failure is no
    value, never a miss. With no `metric`: the test's pass on every metric, for the tests with no run failure."""
    out = {}
    for record in run.iter_records():
        if record.draw != 0:
            continue
        if metric is None:
            if all(entry.outcome is not Outcome.FAILURE for entry in record.metrics.values()):
                out[record.id] = float(record.passed_all)
            continue
        entry = record.metrics.get(metric)
        if entry is not None and entry.outcome in (Outcome.PASS, Outcome.WRONG_GRADE):
            out[record.id] = 1.0 if entry.outcome is Outcome.PASS else 0.0
    return out


def grade_values(run: Run, metric: str) -> dict[str, float]:
    """Each item's grade on `metric` (first draw), by item id, where it has one."""
    out = {}
    for record in run.iter_records():
        entry = record.metrics.get(metric) if record.draw == 0 else None
        if entry is not None and entry.value is not None:
            out[record.id] = entry.value
    return out


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


def paired_metrics(before: Run, after: Run) -> list[PairedMetric]:
    """One row per metric the two runs share (same kind expected), in `before`'s metric order."""
    unit_tests = before.kind == after.kind and kind_of(before.kind).outcomes
    rows = []
    for metric in [m for m in before.summary.metrics if m in after.summary.metrics]:
        pairs = Pairs.of(dict(sorted(_values(before, metric).items())), _values(after, metric))
        means = pairs.means()
        diff = pairs.difference()
        rows.append(
            PairedMetric(
                metric,
                pairs.n,
                means[0] if means else None,
                means[1] if means else None,
                len(pairs.gained()),
                len(pairs.lost()),
                pairs.mcnemar_p() if unit_tests else None,
                diff.mean if diff else None,
                diff.low if diff else None,
                diff.high if diff else None,
            )
        )
    return rows


def _values(run: Run, metric: str) -> dict[str, float]:
    return outcome_values(run, metric) if kind_of(run.kind).outcomes else grade_values(run, metric)


def as_dict(row: PairedMetric) -> dict[str, Any]:
    return dict(row.__dict__)
