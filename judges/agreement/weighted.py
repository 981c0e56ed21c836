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


def _compact(weights: np.ndarray) -> np.ndarray:
    """Integer weights below 256 (the bootstrap's draw counts) as one byte each, so that reordering them reads a
    table that stays in the cache; other weights as given."""
    with np.errstate(invalid="ignore", over="ignore"):
        small = weights.astype(np.uint8)
    return small if np.array_equal(small, weights) else weights


def _mid_ranks(weight: np.ndarray) -> np.ndarray:
    """Each tie group's mid-rank from the groups' weights in value order: the weight below it, half its own, 1/2."""
    ranks = np.cumsum(weight)
    ranks -= weight / 2
    ranks += 0.5
    return ranks


def _squared_ranks(total: float, weight: np.ndarray) -> float:
    """The weighted sum of squared mid-ranks without the ranks: the sum of i^2 for i = 1..W less the tie groups'
    (t^3 - t) / 12 (exact for any weights t summing to W)."""
    return (
        total * (total + 1) * (2 * total + 1) / 6 - (float(np.einsum("i,i,i->", weight, weight, weight)) - total) / 12
    )


# below this total weight a mid-rank of integer weights (a multiple of 1/2) is exact in float32
_EXACT_FLOAT32 = 2**22


def spearman(human: np.ndarray, judge: np.ndarray) -> Prepared:
    """Spearman's rho: Pearson's r of the mid-ranks each resample gives (ties get the average rank, as scipy's).

    A tie group's mid-rank is the weight below it plus half its own (plus one half). The sums of ranks and of
    squared ranks follow from the tie groups' weights in closed form (W (W + 1) / 2, and `_squared_ranks`); only
    the cross term visits the rows. The rows are put in the people's and in the judge's order once, so each
    resample sums its tie groups over consecutive rows: two reorderings of the weights (one byte each for draw
    counts) and one look-up of the people's mid-ranks in the judge's order are its only scattered reads."""
    (gh, nh), (gj, nj) = _ties(human), _ties(judge)
    by_human, by_judge = np.argsort(gh, kind="stable"), np.argsort(gj, kind="stable")
    gh_sorted, gj_sorted, gh_by_judge = gh[by_human], gj[by_judge], gh[by_judge]
    del gh, gj

    def prepared(weights: np.ndarray) -> np.ndarray:
        totals = weights.sum(axis=1)
        sums = np.empty((weights.shape[0], 5))
        for k, row in enumerate(weights):
            compact, total = _compact(row), float(totals[k])
            w_h, w_j = compact[by_human].astype(float), compact[by_judge].astype(float)
            by_h, by_j = np.bincount(gh_sorted, w_h, nh), np.bincount(gj_sorted, w_j, nj)
            del w_h
            exact = np.float32 if compact.dtype == np.uint8 and total < _EXACT_FLOAT32 else np.float64
            rank_h = _mid_ranks(by_h.astype(exact, copy=False))  # in float32 half the table to look up at random
            w_j *= rank_h[gh_by_judge]
            cross = np.einsum("i,i->", np.bincount(gj_sorted, w_j, nj), _mid_ranks(by_j.astype(exact, copy=False)))
            rank_sum = total * (total + 1) / 2
            sums[k] = (rank_sum, rank_sum, _squared_ranks(total, by_h), _squared_ranks(total, by_j), cross)
        return _correlation(totals, sums)

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
