"""Krippendorff's alpha of two coders on weighted rows in closed form, for a block of bootstrap resamples at once.

Nominal and ordinal alpha come from the coincidence matrix over a few levels, interval alpha from sums of values and
squares (Krippendorff 2011); the agreement statistics and the run summary's consistency over draws share them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Prepared = Callable[[np.ndarray], np.ndarray]  # (k, rows) weights -> (k,) values, NaN where undefined
Weighted = Callable[[np.ndarray, np.ndarray], Prepared]  # (human, judge) on all rows -> its resampled form
DEGENERATE = 1e-12  # a weighted variance below this share of the mean square is a constant resample


def weighted_sums(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(k, rows) weights times (m, rows) values: (k, m) sums, without BLAS (its threads spin against each other on
    a busy machine, measured a hundredfold slower there; these products are bound by memory, not arithmetic)."""
    return np.einsum("kr,mr->km", weights, values)


def group_sums(group: np.ndarray, n_groups: int, weights: np.ndarray) -> np.ndarray:
    """(k, n_groups): the weights of each resample summed by group (one bincount per resample)."""
    sums = np.empty((weights.shape[0], n_groups))
    for k, row in enumerate(weights):  # one bincount per resample: no (k x rows) index built
        sums[k] = np.bincount(group, weights=row, minlength=n_groups)
    return sums


def level_counts(levels: Sequence[float], human: np.ndarray, judge: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """(k, L, L) weighted counts, rows: the human label's level, columns: the judge's."""
    grid = np.asarray(levels, dtype=float)
    size = grid.size
    cell = np.searchsorted(grid, human) * size + np.searchsorted(grid, judge)
    return lambda weights: group_sums(cell, size * size, weights).reshape(-1, size, size)


def alpha_on_levels(levels: Sequence[float], *, ordinal: bool) -> Weighted:
    """Krippendorff's nominal or ordinal alpha of two coders over a few levels, from the coincidence matrix (each
    row gives the pairs (human, judge) and (judge, human)); the ordinal distance uses each resample's level counts."""

    def weighted(human: np.ndarray, judge: np.ndarray) -> Prepared:
        counts = level_counts(levels, human, judge)

        def prepared(weights: np.ndarray) -> np.ndarray:
            matrix = counts(weights)
            coincidence = matrix + matrix.transpose(0, 2, 1)
            marginal = coincidence.sum(axis=2)  # (k, L)
            total = marginal.sum(axis=1)
            if ordinal:
                cumulative = np.cumsum(marginal, axis=1)
                high = cumulative[:, None, :]  # through level k
                low = (cumulative - marginal)[:, :, None]  # below level c
                between = np.abs(high - low)  # the sum of the counts from c to k (for c <= k; symmetric)
                between = np.maximum(between, np.swapaxes(between, 1, 2))
                distance = (between - (marginal[:, :, None] + marginal[:, None, :]) / 2) ** 2
            else:
                distance = np.broadcast_to(1.0 - np.eye(len(levels)), coincidence.shape)
            observed = (coincidence * distance).sum(axis=(1, 2))
            expected = (marginal[:, :, None] * marginal[:, None, :] * distance).sum(axis=(1, 2))
            with np.errstate(invalid="ignore", divide="ignore"):
                return 1 - (total - 1) * observed / expected

        return prepared

    return weighted


def interval_alpha(human: np.ndarray, judge: np.ndarray) -> Prepared:
    """Krippendorff's interval alpha of two coders in closed form: 1 - (n - 1) D_o / D_e with n = 2W values,
    D_o = 2 sum w (h - j)^2 and D_e = 2 n sum w (h^2 + j^2) - 2 (sum w (h + j))^2 (no values x values matrix)."""
    centre = (human.mean() + judge.mean()) / 2
    moments = np.empty((3, human.size))
    np.subtract(human, judge, out=moments[0])
    moments[0] **= 2  # (h - j)^2
    np.add(human, judge, out=moments[1])
    moments[1] -= 2 * centre  # h + j, centred
    np.subtract(human, centre, out=moments[2])
    moments[2] **= 2
    squares_j = judge - centre
    squares_j **= 2
    moments[2] += squares_j  # h^2 + j^2, centred
    del squares_j

    def prepared(weights: np.ndarray) -> np.ndarray:
        n = 2 * weights.sum(axis=1)
        gap, both, squares = weighted_sums(weights, moments).T
        observed = 2 * gap
        spread = 2 * n * squares - 2 * both**2
        with np.errstate(invalid="ignore", divide="ignore"):
            value = 1 - (n - 1) * observed / spread
        return np.where(spread > DEGENERATE * 2 * n * squares, value, np.nan)

    return prepared
