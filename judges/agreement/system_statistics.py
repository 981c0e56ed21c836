"""Weighted statistics for resamples given as item counts: Pearson's r, average ranks, and the system-level
correlations and pairwise accuracy across the rows of (resamples, systems) matrices."""

from __future__ import annotations

import numpy as np

# system means of the resamples turned into system-level figures at a time: the counts behind Kendall's tau-b hold
# about twenty arrays of this length (40 MB), whatever the number of systems
LEVEL_BLOCK_VALUES = 250_000
SYSTEM_LEVEL = (
    "system_level_pearson",
    "system_level_spearman",
    "system_level_kendall",
    "system_level_pairwise_accuracy",
)


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


def tied_pairs(ordered: np.ndarray, *more: np.ndarray) -> np.ndarray:
    """For each row of (rows, n) matrices sorted along the row, how many pairs of its n entries are tied: equal in
    `ordered` and in each of `more` (sorted along with it). A run of g equal entries holds g (g - 1) / 2 pairs: the
    sum over entries of how many equal ones precede it in its run."""
    equal = ordered[:, 1:] == ordered[:, :-1]
    for other in more:
        equal &= other[:, 1:] == other[:, :-1]
    place = np.arange(ordered.shape[1])
    run_start = np.maximum.accumulate(np.where(np.pad(equal, ((0, 0), (1, 0))), 0, place), axis=1)
    return (place - run_start).sum(axis=1)


def inversions(seq: np.ndarray) -> np.ndarray:
    """For each row of a (rows, n) matrix of integers in [0, n), the pairs of places a < b with seq[a] > seq[b], in
    O(n log n) a row and no Python loop over the entries: a radix count from the top bit down. Entries that agree on
    the bits above bit b form a group (kept in place order); a pair of the group whose earlier entry has bit b set
    and whose later one has not is an inversion decided at that bit. Each level adds, for every 0 of a group, the 1s
    before it, then splits the group stably into its 0s and its 1s (a counting sort on one bit)."""
    rows, n = seq.shape
    values = seq.ravel().astype(np.int64)
    starts = np.zeros(values.size, dtype=bool)
    starts[::n] = True  # a group per row to begin with
    place = np.arange(values.size)
    found = np.zeros(rows, dtype=np.int64)
    for bit in range(max(int(n - 1).bit_length(), 1) - 1, -1, -1):
        one = (values >> bit) & 1
        first = np.flatnonzero(starts)
        group = np.cumsum(starts) - 1
        before = np.cumsum(one) - one  # the 1s before each entry, from the start of the matrix
        ones_before = before - before[first][group]  # ... from the start of its group
        found += np.where(one == 0, ones_before, 0).reshape(rows, n).sum(axis=1)
        size = np.diff(np.append(first, values.size))
        zeros = size - np.add.reduceat(one, first)
        target = np.where(one == 0, place - ones_before, first[group] + zeros[group] + ones_before)
        values[target] = values.copy()
        starts[:] = False
        starts[first] = True
        split = (zeros > 0) & (zeros < size)
        starts[first[split] + zeros[split]] = True
    return found


def kendall_rows(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b across systems and the pairwise accuracy (the share of system pairs ordered alike, a pair
    tied on both sides counting as alike) for each row of two (resamples, systems) matrices, from counts in
    O(systems log systems) a row: never the systems x systems pairs.

    Ordered by h, then j, the discordant pairs D are the inversions of j's ranks; with P pairs and T_h, T_j, T_hj
    tied in h, in j and in both, the concordant ones are C = P - T_h - T_j + T_hj - D, tau-b is
    (C - D) / sqrt((P - T_h)(P - T_j)) (scipy.stats.kendalltau's, equal to it in the tests) and the accuracy
    (C + T_hj) / P."""
    n = h.shape[1]
    pairs = n * (n - 1) // 2
    by_j = np.argsort(j, axis=1, kind="stable")
    j_sorted, h_by_j = np.take_along_axis(j, by_j, axis=1), np.take_along_axis(h, by_j, axis=1)
    rank = np.zeros(j.shape, dtype=np.int64)  # j's dense rank, in j's order
    np.cumsum(j_sorted[:, 1:] != j_sorted[:, :-1], axis=1, out=rank[:, 1:])
    then_h = np.argsort(h_by_j, axis=1, kind="stable")  # stable: by h, then by j
    h_sorted = np.take_along_axis(h_by_j, then_h, axis=1)
    both = tied_pairs(h_sorted, np.take_along_axis(j_sorted, then_h, axis=1))
    tied_h, tied_j = tied_pairs(h_sorted), tied_pairs(j_sorted)
    discordant = inversions(np.take_along_axis(rank, then_h, axis=1))
    concordant = pairs - tied_h - tied_j + both - discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (concordant - discordant) / np.sqrt((pairs - tied_h).astype(float) * (pairs - tied_j))
    return tau, (concordant + both) / pairs


def _rowwise_pearson(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    dh, dj = h - h.mean(axis=1, keepdims=True), j - j.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dh * dj).sum(axis=1) / np.sqrt((dh * dh).sum(axis=1) * (dj * dj).sum(axis=1))


def system_level(human_means: np.ndarray, judge_means: np.ndarray) -> dict[str, np.ndarray]:
    """The system-level statistics for each row of two (resamples, systems) matrices of per-system means, a block
    of rows at a time (LEVEL_BLOCK_VALUES means), so memory grows with the systems, never with their pairs."""
    from scipy.stats import rankdata

    names = SYSTEM_LEVEL
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    rows = max(1, LEVEL_BLOCK_VALUES // max(human_means.shape[1], 1))
    for start in range(0, human_means.shape[0], rows):
        h, j = human_means[start : start + rows], judge_means[start : start + rows]
        kendall, accuracy = kendall_rows(h, j)
        spearman = _rowwise_pearson(rankdata(h, axis=1), rankdata(j, axis=1))
        for name, values in zip(names, (_rowwise_pearson(h, j), spearman, kendall, accuracy)):
            parts[name].append(values)
    return {name: np.concatenate(values) if values else np.empty(0) for name, values in parts.items()}
