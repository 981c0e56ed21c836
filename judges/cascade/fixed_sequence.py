"""A judge's confidence threshold by fixed-sequence testing with an exact binomial bound (Jung, Brahman and Choi,
"Trust or Escalate", ICLR 2025): the lowest threshold whose kept verdicts provably agree with people at the target."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_KEPT = 30  # the first threshold tested keeps at least this many items, as in the reference implementation
GRID_POINTS = 5000  # candidate thresholds: this many evenly spaced in [0, 1], as in the reference implementation


@dataclass(frozen=True)
class Step:
    """One candidate threshold: the items kept at it (confidence >= threshold), how many of them agree with the
    label, the exact upper bound of their disagreement rate, and whether it was tested and rejected H0."""

    threshold: float
    kept: int
    agreeing: int
    upper_bound: float
    tested: bool
    rejected: bool

    @property
    def agreement(self) -> float:
        return self.agreeing / self.kept


@dataclass(frozen=True)
class ThresholdChoice:
    """The threshold chosen (None: the judge keeps nothing), on how many items it was calibrated, and every step."""

    threshold: float | None
    offered: int
    steps: tuple[Step, ...]

    @property
    def chosen(self) -> Step | None:
        return next((s for s in self.steps if s.threshold == self.threshold), None)


def disagreement_upper_bound(disagreeing: np.ndarray, kept: np.ndarray, delta: float) -> np.ndarray:
    """The exact (Clopper-Pearson) one-sided upper bound at level delta of the disagreement rate: the rate r at which
    seeing at most `disagreeing` of `kept` has probability delta (1 when every kept verdict disagrees)."""
    bound = stats.beta.ppf(1 - delta, disagreeing + 1, np.maximum(kept - disagreeing, 1))
    return np.where(disagreeing >= kept, 1.0, bound)


def choose_threshold(
    confidences: np.ndarray, agrees: np.ndarray, *, target: float, delta: float, min_kept: int = MIN_KEPT
) -> ThresholdChoice:
    """Fixed-sequence testing from the most confident down.

    The candidates are GRID_POINTS thresholds evenly spaced in [0, 1], highest first, from the first that keeps at
    least `min_kept` items (a grid fixed in advance, as the reference's: a candidate per distinct confidence would
    test near-identical sets one item apart where confidences crowd near 1, and stop at the first unlucky item). At each, the exact binomial test of H0: the kept items' disagreement rate is above 1 - target, at level
    delta (rejected when P(Binomial(kept, 1 - target) <= disagreeing) <= delta); the first non-rejection stops the
    sequence, and the threshold is the last rejected candidate. When the first candidate is not rejected (or no
    candidate keeps `min_kept` items) the judge keeps nothing: unlike the reference code, which then keeps its 30 most
    confident items anyway, breaking the guarantee. NaN confidences (nulls, failures) are never kept.
    """
    usable = ~np.isnan(confidences)
    conf = confidences[usable]
    agree = agrees[usable].astype(bool)
    order = np.argsort(-conf, kind="stable")
    conf, agree = conf[order], agree[order]
    grid = np.linspace(0, 1, GRID_POINTS)[::-1]
    kept_at_grid = len(conf) - np.searchsorted(conf[::-1], grid, side="left")
    # grid points keeping the same items make one test: each set of kept items once, at its lowest grid point
    last_of_set = np.flatnonzero(np.diff(np.append(kept_at_grid, -1)) != 0)
    candidates, kept = grid[last_of_set], kept_at_grid[last_of_set]
    candidates, kept = candidates[kept > 0], kept[kept > 0]
    agreeing = np.concatenate([[0], np.cumsum(agree)])[kept]
    disagreeing = kept - agreeing
    rejects = stats.binom.cdf(disagreeing, kept, 1 - target) <= delta
    bounds = disagreement_upper_bound(disagreeing, kept, delta)
    threshold, tested = None, np.zeros(len(candidates), dtype=bool)
    for n in np.flatnonzero(kept >= min_kept):
        tested[n] = True
        if not rejects[n]:
            break
        threshold = float(candidates[n])
    steps = tuple(
        Step(float(c), int(k), int(a), float(b), bool(t), bool(t and r))
        for c, k, a, b, t, r in zip(candidates, kept, agreeing, bounds, tested, rejects, strict=True)
    )
    return ThresholdChoice(threshold, len(confidences), steps)
