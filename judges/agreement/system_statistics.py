"""Weighted statistics for resamples given as item counts: Pearson's r, average ranks, and the system-level
correlations and pairwise accuracy across the rows of (resamples, systems) matrices."""

from __future__ import annotations

from itertools import combinations

import numpy as np


def weighted_correlation(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, scales: tuple[float, float] = (0.0, 0.0)
) -> float:
    """Pearson's r of x and y with each item counted w times, from five weighted sums (plain multiply-and-sum:
    BLAS's threads stall a vector product by 1,000x on a busy machine).

    NaN when either is constant: its spread is rounding noise next to its values, or next to `scales` (the size of
    the values residuals were taken from, so residuals that are rounding noise around 0 count as constant).
    """
    total, wx, wy = w.sum(), w * x, w * y
    sum_x, sum_y, raw_xx, raw_yy = wx.sum(), wy.sum(), (wx * x).sum(), (wy * y).sum()
    sxx, syy = raw_xx - sum_x * sum_x / total, raw_yy - sum_y * sum_y / total
    floor_x, floor_y = max(raw_xx, total * scales[0] ** 2), max(raw_yy, total * scales[1] ** 2)
    if sxx <= 1e-12 * floor_x or syy <= 1e-12 * floor_y:
        return float("nan")
    return float(((wx * y).sum() - sum_x * sum_y / total) / np.sqrt(sxx * syy))


def weighted_ranks(x: np.ndarray, w: np.ndarray, presort: np.ndarray | None) -> np.ndarray:
    """Average ranks of x in the sample that holds item i w[i] times (scipy's rankdata "average" on that sample).

    `presort` turns x into a few ascending runs (one per system), which the stable sort (timsort) merges in
    near-linear time; None when x already is such runs.
    """
    order = np.argsort(x, kind="stable") if presort is None else presort[np.argsort(x[presort], kind="stable")]
    xs, ws = x[order], w[order]
    new = np.empty(xs.size, dtype=bool)
    new[0] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    ranks = np.empty_like(x)
    if new.all():  # no ties: each item's rank is the draws before it plus the middle of its own copies
        ranks[order] = np.cumsum(ws) - (ws - 1) / 2
        return ranks
    starts = np.flatnonzero(new)
    total = np.add.reduceat(ws, starts)
    mid = np.cumsum(total) - total + (total + 1) / 2
    ranks[order] = np.repeat(mid, np.diff(np.append(starts, xs.size)))
    return ranks


def _kendall_tau_b(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Kendall's tau-b across systems for each row of two (resamples, systems) matrices (few systems: all pairs)."""
    pairs = np.array(list(combinations(range(h.shape[1]), 2)))
    sh = np.sign(h[:, pairs[:, 1]] - h[:, pairs[:, 0]])
    sj = np.sign(j[:, pairs[:, 1]] - j[:, pairs[:, 0]])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sh * sj).sum(axis=1) / np.sqrt((sh != 0).sum(axis=1) * (sj != 0).sum(axis=1))


def _rowwise_pearson(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    dh, dj = h - h.mean(axis=1, keepdims=True), j - j.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dh * dj).sum(axis=1) / np.sqrt((dh * dh).sum(axis=1) * (dj * dj).sum(axis=1))


def system_level(human_means: np.ndarray, judge_means: np.ndarray) -> dict[str, np.ndarray]:
    """The system-level statistics for each row of two (resamples, systems) matrices of per-system means."""
    from scipy.stats import rankdata

    pairs = np.array(list(combinations(range(human_means.shape[1]), 2)))
    dh = human_means[:, pairs[:, 1]] - human_means[:, pairs[:, 0]]
    dj = judge_means[:, pairs[:, 1]] - judge_means[:, pairs[:, 0]]
    return {
        "system_level_pearson": _rowwise_pearson(human_means, judge_means),
        "system_level_spearman": _rowwise_pearson(rankdata(human_means, axis=1), rankdata(judge_means, axis=1)),
        "system_level_kendall": _kendall_tau_b(human_means, judge_means),
        "system_level_pairwise_accuracy": (np.sign(dh) == np.sign(dj)).mean(axis=1),
    }
