"""What a judge-benchmark row rests on (its pairwise statistic over weighted label rows), every such row drawn on the
same resamples of the items, and two of them compared by a paired bootstrap."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judges.agreement.bootstrap import ItemRows, percentile_interval, resample_blocks
from judges.agreement.pairwise_protocols import Stat
from judges.runs.paired_difference import CONFIDENCE, RESAMPLES, SEED, Difference


@dataclass(frozen=True)
class PairDraws:
    """One judge's pairwise statistic on a benchmark: its name, the label rows' item ids in order (every judge of
    the benchmark has the same rows: a pair it left out counts as no verdict), which item each row is, and the
    statistic of (resamples, rows) weights."""

    statistic: str
    ids: tuple[str, ...]
    items: ItemRows
    stat: Stat

    def value(self) -> float:
        """The statistic on every row once."""
        return float(self.stat(np.ones((1, self.items.row_item.size)))[0])


def joint_pair_draws(rows: list[PairDraws], resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray | None:
    """(resamples, judges) of each judge's statistic on the same seeded resamples of the items (nan where a resample
    leaves it undefined); None unless all rest on the same statistic and the same rows of two or more items."""
    first = rows[0]
    if first.items.n_items < 2 or any(r.statistic != first.statistic or r.ids != first.ids for r in rows):
        return None
    drawn = []
    for index in resample_blocks(first.items.n_items, resamples, seed):
        weights = first.items.weights(index)
        drawn.append(np.stack([r.stat(weights) for r in rows], axis=1))
    return np.concatenate(drawn)


def pair_difference(a: PairDraws, b: PairDraws) -> Difference | None:
    """a's statistic minus b's with its percentile paired-bootstrap interval, on the same rows; None where they do
    not share them or the difference is undefined."""
    drawn = joint_pair_draws([a, b])
    point = a.value() - b.value()
    if drawn is None or not np.isfinite(point):
        return None
    ci, _ = percentile_interval(drawn[:, 0] - drawn[:, 1], CONFIDENCE)
    if ci is None:
        return None
    return Difference(a.items.n_items, float(point), ci[0], ci[1], of=a.statistic)
