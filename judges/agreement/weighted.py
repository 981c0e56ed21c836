"""Statistics of weighted label rows, for a block of bootstrap resamples at once.

A resample is the weight of every label row (how many times the resample drew its item), so no resample is ever
expanded into rows and nothing grows with the rows but a few arrays of their length: correlations from weighted
moments, Spearman's rho from weighted mid-ranks of tie groups, AUROC from weighted counts below each score, and
kappa, balanced accuracy, F1 and MCC from a weighted confusion matrix over the label levels; Krippendorff's alpha
(two coders: the judge and the people) is `judges.stats.alpha_forms`'s, shared with the run summary. On integer weights each form equals its library counterpart (scipy, scikit-learn,
krippendorff) on the expanded rows; the tests check that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from judges.stats.alpha_forms import DEGENERATE, Prepared, Weighted, group_sums, level_counts, weighted_sums


def _correlation(total: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """Pearson's r from each resample's total weight and weighted sums of x, y, x^2, y^2 and xy (k x 5)."""
    mean_x, mean_y = sums[:, 0] / total, sums[:, 1] / total
    square_x, square_y = sums[:, 2] / total, sums[:, 3] / total
    var_x, var_y = square_x - mean_x**2, square_y - mean_y**2
    covariance = sums[:, 4] / total - mean_x * mean_y
    with np.errstate(invalid="ignore", divide="ignore"):
        r = covariance / np.sqrt(var_x * var_y)
    constant = (var_x <= DEGENERATE * square_x) | (var_y <= DEGENERATE * square_y)
    return np.where(constant, np.nan, np.clip(r, -1.0, 1.0))


def pearson(human: np.ndarray, judge: np.ndarray) -> Prepared:
    """Pearson's r from weighted moments: one (k x rows) @ (rows x 5) product per block of resamples."""
    x, y = human - human.mean(), judge - judge.mean()  # centred once: no cancellation in the moments
    moments = np.empty((5, x.size))
    moments[0], moments[1] = x, y
    del x, y
    np.multiply(moments[0], moments[0], out=moments[2])
    np.multiply(moments[1], moments[1], out=moments[3])
    np.multiply(moments[0], moments[1], out=moments[4])
    return lambda weights: _correlation(weights.sum(axis=1), weighted_sums(weights, moments))


def _ties(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's tie group (0 for the smallest value) and how many groups there are."""
    distinct, group = np.unique(values, return_inverse=True)
    return group.ravel(), int(distinct.size)


def spearman(human: np.ndarray, judge: np.ndarray) -> Prepared:
    """Spearman's rho: Pearson's r of the mid-ranks each resample gives (ties get the average rank, as scipy's).

    A tie group's mid-rank is the weight below it plus half its own (plus one half); the sums of ranks and squared
    ranks are taken over the groups, and only the cross term visits the rows (two bincounts and one gather per
    resample, O(rows), no sort)."""
    (gh, nh), (gj, nj) = _ties(human), _ties(judge)

    def prepared(weights: np.ndarray) -> np.ndarray:
        sums = np.empty((weights.shape[0], 5))
        for k, w in enumerate(weights):
            by_h, by_j = np.bincount(gh, weights=w, minlength=nh), np.bincount(gj, weights=w, minlength=nj)
            rank_h, rank_j = np.cumsum(by_h) - by_h / 2 + 0.5, np.cumsum(by_j) - by_j / 2 + 0.5
            cross = np.bincount(gj, weights=w * rank_h[gh], minlength=nj)
            pairs = ((by_h, rank_h), (by_j, rank_j), (by_h * rank_h, rank_h), (by_j * rank_j, rank_j), (cross, rank_j))
            sums[k] = [np.einsum("i,i->", a, b) for a, b in pairs]
        return _correlation(weights.sum(axis=1), sums)

    return prepared


def auroc(human: np.ndarray, judge: np.ndarray) -> Prepared:
    """The share of (positive, negative) pairs the score orders right, a tie counting half."""
    group, n_groups = _ties(judge)
    positive = human == 1

    def prepared(weights: np.ndarray) -> np.ndarray:
        pos = group_sums(group, n_groups, weights * positive)
        neg = group_sums(group, n_groups, weights * ~positive)
        below = np.cumsum(neg, axis=1) - neg
        with np.errstate(invalid="ignore", divide="ignore"):
            return (pos * (below + neg / 2)).sum(axis=1) / (pos.sum(axis=1) * neg.sum(axis=1))

    return prepared


def sign_agreement(*, decisive: bool) -> Weighted:
    """The weighted share of rows where the judge prefers the answer people prefer (decisive: people not tied)."""

    def weighted(human: np.ndarray, judge: np.ndarray) -> Prepared:
        counted = (human != 0) if decisive else np.ones_like(human, dtype=bool)
        both = np.stack([(np.sign(human) == np.sign(judge)) & counted, counted]).astype(float)

        def prepared(weights: np.ndarray) -> np.ndarray:
            agree, total = weighted_sums(weights, both).T
            with np.errstate(invalid="ignore", divide="ignore"):
                return agree / total

        return prepared

    return weighted


def quadratic_kappa(levels: Sequence[float]) -> Weighted:
    """Cohen's kappa with quadratic weights (scikit-learn's cohen_kappa_score(weights="quadratic"))."""
    index = np.arange(len(levels))
    penalty = (index[:, None] - index[None, :]) ** 2

    def weighted(human: np.ndarray, judge: np.ndarray) -> Prepared:
        counts = level_counts(levels, human, judge)

        def prepared(weights: np.ndarray) -> np.ndarray:
            matrix = counts(weights)
            expected = (
                matrix.sum(axis=2)[:, :, None] * matrix.sum(axis=1)[:, None, :] / matrix.sum(axis=(1, 2))[:, None, None]
            )
            with np.errstate(invalid="ignore", divide="ignore"):
                return 1 - (matrix * penalty).sum(axis=(1, 2)) / (expected * penalty).sum(axis=(1, 2))

        return prepared

    return weighted


Counts = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]  # (tn, fp, fn, tp) -> a value each


def balanced_accuracy_counts(tn: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """Balanced accuracy as scikit-learn defines it: the mean recall of the human classes present."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nanmean(np.stack([tn / (tn + fp), tp / (tp + fn)]), axis=0)


def f1_counts(tn: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """F1 of label 1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * tp / (2 * tp + fp + fn)


def mcc_counts(tn: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """Matthews' correlation, 0 where it is undefined (as scikit-learn)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        total, true, predicted = tn + fp + fn + tp, tp + fn, tp + fp
        covariance = (tp + tn) * total - (true * predicted + (total - true) * (total - predicted))
        spread = (total**2 - true**2 - (total - true) ** 2) * (total**2 - predicted**2 - (total - predicted) ** 2)
        return np.where(spread > 0, covariance / np.sqrt(spread), 0.0)


def binary_from_counts(value: Counts) -> Weighted:
    """A statistic of the weighted 2 x 2 matrix (rows the human label, columns the judge's), given as its formula of
    (tn, fp, fn, tp): `balanced_accuracy_counts`, `f1_counts`, `mcc_counts`, or `chance`'s kappa and AC1."""

    def weighted(human: np.ndarray, judge: np.ndarray) -> Prepared:
        counts = level_counts((0.0, 1.0), human, judge)

        def prepared(weights: np.ndarray) -> np.ndarray:
            matrix = counts(weights)
            return value(matrix[:, 0, 0], matrix[:, 0, 1], matrix[:, 1, 0], matrix[:, 1, 1])

        return prepared

    return weighted
