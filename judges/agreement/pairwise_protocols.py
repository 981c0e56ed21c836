"""The judge benchmarks' pairwise statistics (LLMBar, JudgeBench, MT-Bench, RewardBench) with bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from judges.agreement.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Figure,
    ItemRows,
    percentile_interval,
    resample_blocks,
)

# verdict codes, the label coded alike: A (the first answer as the set gives it), B, a tie, no verdict
A, B, TIE, NONE = 0, 1, 2, 3
CODES = {"A": A, "B": B, "tie": TIE}
OPPOSITE = np.array([B, A, TIE, NONE])  # the other answer; a tie's opposite is a tie (never counted against)

Stat = Callable[[np.ndarray], np.ndarray]  # (resamples, rows) weights -> (resamples,) values


@dataclass(frozen=True)
class PairRows:
    """One row per label (an item may have several, e.g. MT-Bench's votes): the label, the judge's verdict in the
    given order and with the answers swapped (in the given order's names), the item each row belongs to."""

    label: np.ndarray
    original: np.ndarray
    swapped: np.ndarray | None  # None: the judge gave one verdict per item (orders already combined)
    items: ItemRows

    def subset(self, keep: np.ndarray) -> PairRows:
        """The rows where `keep` holds, their items renumbered."""
        kept_items = self.items.row_item[keep]
        _, renumbered = np.unique(kept_items, return_inverse=True)
        swapped = None if self.swapped is None else self.swapped[keep]
        n_items = int(renumbered.max()) + 1 if renumbered.size else 0
        return PairRows(self.label[keep], self.original[keep], swapped, ItemRows(renumbered.astype(np.int64), n_items))


def weighted_share(hit: np.ndarray, among: np.ndarray | None = None) -> Stat:
    """The weighted share of rows where `hit` holds, or the weighted mean of `hit`'s credits (among the rows where
    `among` holds; NaN where none is drawn)."""
    hit_f = hit.astype(float)
    base = np.ones(hit.shape) if among is None else among.astype(float)

    def stat(w: np.ndarray) -> np.ndarray:
        total = w @ base
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, (w @ (hit_f * base)) / np.where(total > 0, total, 1), np.nan)

    return stat


def _kappa(x: np.ndarray, y: np.ndarray) -> Stat:
    """Cohen's kappa of two codings over the same four codes, on weighted rows (undefined when chance is 1)."""
    cells = [(i, j, ((x == i) & (y == j)).astype(float)) for i in range(4) for j in range(4)]

    def stat(w: np.ndarray) -> np.ndarray:
        counts = np.zeros((w.shape[0], 4, 4))
        for i, j, cell in cells:
            counts[:, i, j] = w @ cell
        total = counts.sum(axis=(1, 2))
        p = counts / np.where(total > 0, total, 1)[:, None, None]
        observed = np.trace(p, axis1=1, axis2=2)
        expected = (p.sum(axis=2) * p.sum(axis=1)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)

    return stat


def combined(original: np.ndarray, swapped: np.ndarray | None) -> np.ndarray:
    """One verdict per row from both orders (MT-Bench): the orders' verdict when they agree, else a tie."""
    if swapped is None:
        return original
    return np.where(original == swapped, original, TIE)


def vote_right(label: np.ndarray, original: np.ndarray, swapped: np.ndarray | None) -> np.ndarray:
    """JudgeBench's rule: each order votes +1 (the label), -1 (the opposite answer) or 0; right when the sum is > 0."""
    opposite = OPPOSITE[label]
    orders = [original] if swapped is None else [original, swapped]
    votes = sum((order == label).astype(int) - (order == opposite).astype(int) for order in orders)
    return np.asarray(votes > 0)


def pairwise_stats(rows: PairRows) -> dict[str, Stat]:
    """Every pairwise statistic these rows allow, by name (the per-order ones need both orders)."""
    label, one = rows.label, rows.original
    together = combined(one, rows.swapped)
    tie_free = (label != TIE) & (together != TIE)
    stats: dict[str, Stat] = {
        "vote_accuracy": weighted_share(vote_right(label, one, rows.swapped)),
        "accuracy_with_ties": weighted_share(together == label),
        "accuracy_without_ties": weighted_share(together == label, among=tie_free),
    }
    if rows.swapped is None:
        return stats
    two = rows.swapped
    first, second = weighted_share(one == label), weighted_share(two == label)
    return {
        "accuracy_original": first,
        "accuracy_swapped": second,
        "accuracy_mean": lambda w: (first(w) + second(w)) / 2,
        "both_correct": weighted_share((one == label) & (two == label)),
        "position_consistency": weighted_share(one == two),
        "kappa_original": _kappa(one, label),
        "kappa_swapped": _kappa(two, label),
        "kappa_between_orders": _kappa(one, two),
        **stats,
    }


def bootstrap_figures(
    stats: dict[str, Stat],
    items: ItemRows,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> dict[str, Figure]:
    """Each statistic's value on all rows and its percentile interval over the same seeded resamples of the items."""
    n_rows = int(items.row_item.size)
    values = {name: float(stat(np.ones((1, n_rows)))[0]) if n_rows else float("nan") for name, stat in stats.items()}
    drawn: dict[str, list[np.ndarray]] = {name: [] for name in stats}
    if n_rows:
        for index in resample_blocks(items.n_items, resamples, seed):
            weights = items.weights(index)
            for name, stat in stats.items():
                drawn[name].append(stat(weights))
    out = {}
    for name, value in values.items():
        if not np.isfinite(value):
            out[name] = Figure(name, None, None, n_rows, items.n_items, note="undefined on these rows")
            continue
        interval, undefined = percentile_interval(np.concatenate(drawn[name]), confidence)
        note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        out[name] = Figure(name, value, interval, n_rows, items.n_items, note=note)
    return out
