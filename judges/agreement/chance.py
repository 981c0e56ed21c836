"""Chance-corrected agreement of two binary raters: Cohen's kappa and Gwet's AC1, one pair or each resample row.

AC1 follows Gwet (Br. J. Math. Stat. Psychol. 2008): chance agreement from the mean marginal share pi_k of each
category, Pe = sum_k pi_k (1 - pi_k) / (K - 1), AC1 = (Pa - Pe) / (1 - Pe). Unlike Cohen's kappa (Pe = sum_k of the
product of the two raters' shares) it does not collapse when one category dominates (the "kappa paradox",
Feinstein and Cicchetti 1990). Both are computed from the 2 x 2 counts, so a resample costs O(items).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _shares(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observed agreement and each rater's share of 1s, along the last axis."""
    h, j = h.astype(float) > 0.5, j.astype(float) > 0.5
    return (h == j).mean(axis=-1), h.mean(axis=-1), j.mean(axis=-1)


def _corrected(observed: np.ndarray, chance: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def gwet_ac1_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Gwet's AC1 of two 0/1 raters for each row (K = 2: Pe = 2 pi (1 - pi), pi the mean share of 1s)."""
    observed, share_h, share_j = _shares(h, j)
    pi = (share_h + share_j) / 2
    return _corrected(observed, 2 * pi * (1 - pi))


def cohen_kappa_batch(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Cohen's kappa of two 0/1 raters for each row."""
    observed, share_h, share_j = _shares(h, j)
    return _corrected(observed, share_h * share_j + (1 - share_h) * (1 - share_j))


def gwet_ac1(h: np.ndarray, j: np.ndarray) -> float:
    return float(gwet_ac1_batch(h, j))


def cohen_kappa(h: np.ndarray, j: np.ndarray) -> float:
    return float(cohen_kappa_batch(h, j))


def _cells(human: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """(3, rows): whether each row is (1, 1), (1, 0) or (0, 1) for (human, judge)."""
    h, j = human > 0.5, judge > 0.5
    return np.stack([h & j, h & ~j, ~h & j]).astype(float)


def weighted(kind: str) -> Callable[[np.ndarray, np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """Kappa ("cohen_kappa") or AC1 ("gwet_ac1") of resamples given as row weights: (human, judge) -> a function of
    (k, rows) weights giving k values, from the weighted 2 x 2 counts (no resample is expanded into rows)."""

    def prepare(human: np.ndarray, judge: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        cells = _cells(human, judge)

        def on(weights: np.ndarray) -> np.ndarray:
            total = weights.sum(axis=1)
            both, human_only, judge_only = np.einsum("kr,mr->mk", weights, cells)
            with np.errstate(invalid="ignore", divide="ignore"):
                observed = 1 - (human_only + judge_only) / total
                share_h, share_j = (both + human_only) / total, (both + judge_only) / total
            if kind == "gwet_ac1":
                pi = (share_h + share_j) / 2
                return _corrected(observed, 2 * pi * (1 - pi))
            return _corrected(observed, share_h * share_j + (1 - share_h) * (1 - share_j))

        return on

    return prepare
