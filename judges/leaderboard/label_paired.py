"""A paired bootstrap of two judges' agreement statistic, recomputed on each resample of the same items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judges.agreement.bootstrap import ItemRows, paired_differences, percentile_interval, resampler
from judges.agreement.result import MetricAgreement
from judges.agreement.statistics import Statistic
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


def label_pairs(agreement: MetricAgreement, statistic: str) -> LabelPairs | None:
    """The rows behind `statistic` of a measured judge; None when measure kept none or the statistic is not one of
    its plain ones (a system-aware figure is compared by its interval)."""
    rows = agreement.rows
    if rows is None or not rows.ids:
        return None
    chosen = [s for s in rows.statistics if s.name == statistic and s.one is not None]
    if not chosen:
        return None
    return LabelPairs(chosen[0], rows.ids, rows.row_item, rows.human, rows.views[chosen[0].view])


def label_difference(a: LabelPairs, b: LabelPairs) -> Difference | None:
    """The statistic of a minus that of b with its percentile paired-bootstrap interval (paired bootstrap resampling
    of the items, as Koehn, EMNLP 2004, compares two MT systems on one test set); None unless both rest on
    the same statistic and exactly the same (>= 2) items, or when most resamples leave the statistic undefined."""
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
