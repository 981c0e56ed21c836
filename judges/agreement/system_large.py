"""System-aware intervals above the bootstrap size: Fisher's z for the partial correlations, the system means drawn
from their normal bootstrap distribution, and balanced accuracy from multinomial draws of each system's counts.

Above `BOOTSTRAP_ITEMS` items, resampling items within systems costs a pass over every item (and, for Spearman, a
sort) per resample: minutes at a million items. Instead:

- partial Pearson and Spearman: Fisher's z with the degrees of freedom the system's g - 1 one-hot columns take
  (Fisher 1924, Metron 3: a partial correlation removing q variables is distributed as a plain one on n - q
  observations), variance 1 / (n - 3 - (g - 1)) for Pearson and 1.06 / (n - 3 - (g - 1)) for Spearman (Fieller,
  Hartley and Pearson 1957; Bonett and Wright 2000, Psychometrika 65), derived for normal data;
- the system-level figures: a resample's system means are drawn from the normal law the within-system bootstrap of
  a mean tends to (each system's mean of judge and human, with their sample covariance over its item count, the
  central limit theorem; at 2,000 items or more per system its error is far below the resampling noise);
- the macro balanced accuracy: each system's (label, call) counts drawn from the multinomial of its four shares,
  which is exactly the within-system bootstrap of those counts (balanced accuracy depends on nothing else).
"""

from __future__ import annotations

import numpy as np

from judges.agreement.statistics import BOOTSTRAP_ITEMS, fisher_interval
from judges.agreement.system_statistics import system_level

SPEARMAN_VARIANCE = 1.06  # Fieller, Hartley and Pearson (1957)
PARTIAL_NOTE = (
    "interval: Fisher z with variance {variance}/(n - 3 - (systems - 1)) (Fisher 1924; Fieller, Hartley and Pearson "
    f"1957), not the bootstrap, above {BOOTSTRAP_ITEMS:,} items"
)
MEANS_NOTE = f"interval: system means drawn from their normal bootstrap law, above {BOOTSTRAP_ITEMS:,} items"
COUNTS_NOTE = f"interval: each system's four counts drawn as multinomial, above {BOOTSTRAP_ITEMS:,} items"


def partial_interval(
    name: str, value: float, n_items: int, n_systems: int, confidence: float
) -> tuple[tuple[float, float], str]:
    """The Fisher-z interval of a partial correlation controlling for the system, and its note."""
    variance = SPEARMAN_VARIANCE if name == "partial_spearman" else 1.0
    interval = fisher_interval(value, n_items - 3 - (n_systems - 1), confidence, variance)
    return interval, PARTIAL_NOTE.format(variance=f"{variance:g}")


def _system_slices(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items in system order (stable) and where each system's run starts and ends in it: one sort, not a scan
    of every item per system."""
    order = np.argsort(codes, kind="stable")
    return order, np.searchsorted(codes[order], np.arange(int(codes.max()) + 2))


def mean_draws(
    codes: np.ndarray, human: np.ndarray, judge: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(resamples, systems) draws of each system's human and judge means, jointly normal around the system's means
    with covariance (its items' sample covariance) / (its item count), as the within-system bootstrap gives."""
    order, edges = _system_slices(codes)
    n_systems = edges.size - 1
    level_h, level_j = np.empty((resamples, n_systems)), np.empty((resamples, n_systems))
    for k in range(n_systems):
        mine = order[edges[k] : edges[k + 1]]
        h, j = human[mine], judge[mine]
        covariance = np.cov(h, j, bias=True) / h.size  # the plug-in variance: the bootstrap's
        drawn = rng.multivariate_normal([h.mean(), j.mean()], covariance, size=resamples, method="eigh")
        level_h[:, k], level_j[:, k] = drawn[:, 0], drawn[:, 1]
    return level_h, level_j


def macro_balanced_draws(
    codes: np.ndarray, truth: np.ndarray, said: np.ndarray, resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """(resamples,) macro balanced accuracy: per system, its (truth, call) counts drawn as Multinomial(n_s, shares);
    a system whose resample holds one class only is left out of that resample's average, as in the bootstrap. The
    per-system values are summed as they are drawn: memory O(resamples + systems)."""
    n_systems = int(codes.max()) + 1
    cell = codes * 4 + 2 * (truth > 0.5) + (said > 0.5)
    counts = np.bincount(cell, minlength=4 * n_systems).reshape(n_systems, 4).astype(np.int64)
    total, defined = np.zeros(resamples), np.zeros(resamples)
    for k in range(n_systems):
        drawn = rng.multinomial(int(counts[k].sum()), counts[k] / counts[k].sum(), size=resamples)
        tn, fp, fn, tp = drawn.T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (tp / (tp + fn) + tn / (tn + fp)) / 2
        finite = np.isfinite(value)
        total += np.where(finite, value, 0.0)
        defined += finite
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined > 0, total / defined, np.nan)


def large_draws(
    codes: np.ndarray, arrays: list[np.ndarray], binary: bool, resamples: int, seed: int
) -> dict[str, np.ndarray]:
    """The system-level figures from drawn system means, and (binary, as "macro") the macro balanced accuracy from
    drawn counts (the partial correlations take Fisher's z): no pass over the items per resample. `arrays`: each
    item's human value, judge value, 0/1 call and true class, in `codes`' order."""
    rng = np.random.default_rng(seed)
    human, judge, said, truth = arrays
    out = system_level(*mean_draws(codes, human, judge, resamples, rng))
    if binary:
        out["macro"] = macro_balanced_draws(codes, truth, said, resamples, rng)
    return out
