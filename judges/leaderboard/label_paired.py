"""A paired bootstrap of two judges' agreement statistic, recomputed on each resample of the same items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judges.agreement.bootstrap import ItemRows, paired_differences, percentile_interval, resampler
from judges.agreement.result import MetricAgreement
from judges.agreement.statistics import Statistic
from judges.agreement.system_codes import SystemItems
from judges.leaderboard.columns import PER_GROUP, SYSTEM_AWARE
from judges.runs.paired_difference import CONFIDENCE, RESAMPLES, SEED, Difference


@dataclass(frozen=True)
class LabelPairs:
    """What one judge's figure rests on: the statistic, the kept items with their label rows, the human labels and
    the judge's values in the statistic's view (a binary cut, a scaled preference, or the value as given)."""

    statistic: Statistic
    ids: tuple[str, ...]
    row_item: np.ndarray  # the item index of each label row (an item's rows are contiguous)
    human: np.ndarray
    judge: np.ndarray
    # a system-aware figure: the items' systems and the judge's 0/1 call per row (None without a cut)
    systems: SystemItems | None = None
    said: np.ndarray | None = None
    groups: np.ndarray | None = None  # a per-group figure: each item's group (-1: none)


def label_pairs(agreement: MetricAgreement, statistic: str) -> LabelPairs | None:
    """The rows behind `statistic` of a measured judge (a plain statistic, or a system-aware figure with the items'
    systems); None when measure kept none or did not measure it."""
    rows = agreement.rows
    if rows is None or not rows.ids:
        return None
    if statistic in SYSTEM_AWARE:
        items = agreement.systems.items if agreement.systems is not None else None
        if items is None:
            return None
        said = rows.views["binary"] if items.has_cut else None
        return LabelPairs(Statistic(statistic), rows.ids, rows.row_item, rows.human, rows.views["value"], items, said)
    if statistic in PER_GROUP:
        codes = agreement.groups.codes if agreement.groups is not None else None
        if codes is None:
            return None
        return LabelPairs(Statistic(statistic), rows.ids, rows.row_item, rows.human, rows.views["value"], groups=codes)
    chosen = [s for s in rows.statistics if s.name == statistic and s.one is not None]
    if not chosen:
        return None
    return LabelPairs(chosen[0], rows.ids, rows.row_item, rows.human, rows.views[chosen[0].view])


def label_difference(a: LabelPairs, b: LabelPairs) -> Difference | None:
    """The statistic of a minus that of b with its percentile paired-bootstrap interval (paired bootstrap resampling
    of the items, as Koehn, EMNLP 2004, compares two MT systems on one test set); None unless both rest on
    the same statistic and exactly the same (>= 2) items, or when most resamples leave the statistic undefined (and
    for a system-aware or per-group figure, which is compared by its interval)."""
    if any(p.systems is not None or p.groups is not None for p in (a, b)):
        return None
    if a.statistic.name != b.statistic.name or len(a.ids) < 2 or set(a.ids) != set(b.ids):
        return None
    where = {item: n for n, item in enumerate(b.ids)}
    starts = np.concatenate([[0], np.cumsum(np.bincount(b.row_item))])
    judge_b = np.concatenate([b.judge[starts[where[item]] : starts[where[item] + 1]] for item in a.ids])
    stat, human, judge_a = a.statistic, a.human, a.judge
    point = stat(human, judge_a) - stat(human, judge_b)
    if not np.isfinite(point):
        return None
    items = ItemRows(a.row_item, len(a.ids))
    pair = (resampler(stat, human, judge_a, items), resampler(stat, human, judge_b, items))
    drawn = paired_differences({stat.name: pair}, items, RESAMPLES, SEED)
    ci, _ = percentile_interval(drawn[stat.name], CONFIDENCE)
    if ci is None:
        return None
    return Difference(len(a.ids), float(point), ci[0], ci[1], of=stat.name)
