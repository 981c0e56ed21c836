"""A paired bootstrap of two judges' agreement statistic, recomputed on each resample of the same items."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from judges.agreement.paired import resampled_rows
from judges.agreement.result import MetricAgreement
from judges.agreement.statistics import Statistic
from judges.leaderboard.paired import CONFIDENCE, RESAMPLES, SEED, Difference


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


def _balanced_accuracy_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Mean of the recall of each class, per row (scikit-learn's balanced_accuracy_score; NaN with one class)."""
    positive = h == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        recall_1 = (positive & (j == 1)).sum(axis=1) / positive.sum(axis=1)
        recall_0 = (~positive & (j == 0)).sum(axis=1) / (~positive).sum(axis=1)
    return np.asarray((recall_1 + recall_0) / 2, dtype=float)


def _auroc_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """AUROC per row from the Mann-Whitney U of the ranks (ties share the mean rank, as roc_auc_score counts them)."""
    from scipy.stats import rankdata

    positive = h == 1
    n1, n0 = positive.sum(axis=1), (~positive).sum(axis=1)
    ranks = rankdata(j, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(((ranks * positive).sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0), dtype=float)


BATCHED: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "balanced_accuracy": _balanced_accuracy_batch,
    "auroc": _auroc_batch,
}


def _on_resamples(
    stat: Statistic, human: np.ndarray, judge: np.ndarray, rows: np.ndarray | list[np.ndarray]
) -> np.ndarray:
    batch = stat.batch or BATCHED.get(stat.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if batch is not None and isinstance(rows, np.ndarray):
            return np.asarray(batch(human[rows], judge[rows]), dtype=float)
        return np.array([stat(human[r], judge[r]) for r in rows], dtype=float)


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
    values = [
        _on_resamples(stat, human, judge_a, rows) - _on_resamples(stat, human, judge_b, rows)
        for rows in resampled_rows(a.row_item, RESAMPLES, SEED)
    ]
    diffs = np.concatenate(values)
    defined = diffs[np.isfinite(diffs)]
    if defined.size < RESAMPLES / 2:
        return None
    tail = (1 - CONFIDENCE) * 50
    low, high = np.percentile(defined, [tail, 100 - tail])
    return Difference(len(a.ids), float(point), float(low), float(high), of=stat.name)
