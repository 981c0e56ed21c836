"""Chance-corrected agreement of two binary raters: Cohen's kappa and Gwet's AC1, from the 2 x 2 counts.

AC1 follows Gwet (Br. J. Math. Stat. Psychol. 2008): chance agreement from the mean marginal share pi_k of each
category, Pe = sum_k pi_k (1 - pi_k) / (K - 1), AC1 = (Pa - Pe) / (1 - Pe). Unlike Cohen's kappa (Pe = sum_k of the
product of the two raters' shares) it does not collapse when one category dominates (the "kappa paradox",
Feinstein and Cicchetti 1990). Both are computed from the 2 x 2 counts, so a resample costs O(items).
"""

from __future__ import annotations

import numpy as np


def _corrected(observed: np.ndarray, chance: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def kappa_counts(tn: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """Cohen's kappa from (weighted) 2 x 2 counts, rows the human label, columns the judge's."""
    total = tn + fp + fn + tp
    with np.errstate(invalid="ignore", divide="ignore"):
        observed, share_h, share_j = (tn + tp) / total, (fn + tp) / total, (fp + tp) / total
    return _corrected(observed, share_h * share_j + (1 - share_h) * (1 - share_j))


def ac1_counts(tn: np.ndarray, fp: np.ndarray, fn: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """Gwet's AC1 (K = 2: Pe = 2 pi (1 - pi), pi the mean share of 1s) from (weighted) 2 x 2 counts."""
    total = tn + fp + fn + tp
    with np.errstate(invalid="ignore", divide="ignore"):
        observed, share_h, share_j = (tn + tp) / total, (fn + tp) / total, (fp + tp) / total
    pi = (share_h + share_j) / 2
    return _corrected(observed, 2 * pi * (1 - pi))


def _counts(h: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(tn, fp, fn, tp) of the judge's 0/1 calls against the human 0/1 labels."""
    h, j = h.astype(float) > 0.5, j.astype(float) > 0.5
    return np.array([np.count_nonzero(a & b) for a, b in ((~h, ~j), (~h, j), (h, ~j), (h, j))], dtype=float)


def gwet_ac1(h: np.ndarray, j: np.ndarray) -> float:
    """Gwet's AC1 of two 0/1 raters."""
    return float(ac1_counts(*_counts(h, j)))


def cohen_kappa(h: np.ndarray, j: np.ndarray) -> float:
    """Cohen's kappa of two 0/1 raters."""
    return float(kappa_counts(*_counts(h, j)))
