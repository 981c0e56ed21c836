"""Paired statistics of two runs over the items they share: the values that went up and down, McNemar's exact test
on pass/fail pairs (scipy's binomtest on the discordant pairs), and a paired bootstrap of the difference; per
metric (`paired_metrics`, for `compare` and the viewer); how two runs compare is their kind's (`comparison`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.runs.kinds import kind_of

if TYPE_CHECKING:
    from judges.records import MetricRecord
    from judges.runs.kinds import Comparison
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
    compared = comparison(before, after)
    rows = []
    for metric in [m for m in before.summary.metrics if m in after.summary.metrics]:
        pairs = Pairs.of(dict(sorted(compared.values(before, metric).items())), compared.values(after, metric))
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
                pairs.mcnemar_p() if compared.rate else None,
                diff.mean if diff else None,
                diff.low if diff else None,
                diff.high if diff else None,
            )
        )
    return rows


def as_dict(row: PairedMetric) -> dict[str, Any]:
    return dict(row.__dict__)


class ByGrade:
    """Two runs compared by each item's grade (a kind that gives no `compare`, or two runs of different kinds)."""

    rate = False

    def values(self, run: Run, metric: str) -> dict[str, float]:
        return grade_values(run, metric)

    def state(self, entry: MetricRecord) -> str:
        value = entry.value
        return f"{value:g}" if value is not None else entry.verdict.state.value

    def flipped(self, old: str, new: str) -> bool:
        return old != new

    def title(self, changed: Sequence[tuple[str, str, str, str]]) -> str:
        return f"{len(changed)} changed verdicts"

    def lines(self, before_name: str, after_name: str) -> list[str]:
        return []


def comparison(before: Run, after: Run) -> Comparison:
    """How `before` and `after` compare: by their kind's `compare` when both are of it, else by grade."""
    own = kind_of(before.kind).compare(before, after) if before.kind == after.kind else None
    return own if own is not None else ByGrade()
