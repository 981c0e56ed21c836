"""How independent a jury's members are: the mean pairwise Pearson correlation of their errors on the items all of
them graded, and the effective number of independent members n / (1 + (n - 1) * mean correlation)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ROUNDING = 1e-9  # a denominator this small is zero: correlations of exactly -1 / (n - 1) come out near it


@dataclass(frozen=True)
class ErrorCorrelation:
    """The mean correlation over the member pairs where it is defined (both members' errors vary), how many such
    pairs and common items it rests on, the effective number of members, and why a figure is missing."""

    mean_correlation: float | None
    effective_members: float | None
    pairs: int
    n_items: int
    note: str | None = None


def effective_members(n: int, mean_correlation: float) -> float | None:
    """n / (1 + (n - 1) * r): n members whose errors correlate at r are worth that many independent ones (None
    when the denominator is not positive, to rounding: errors that anti-correlate so much have no such count)."""
    denominator = 1 + (n - 1) * mean_correlation
    return n / denominator if denominator > ROUNDING else None


def error_correlation(errors: Sequence[Mapping[str, float]]) -> ErrorCorrelation:
    """From each member's error per item (1/0 error indicators, or signed errors for graded labels), keyed by item
    id: Pearson correlations over the items every member has, averaged over the pairs of members."""
    import numpy as np  # defers numpy
    from scipy.stats import pearsonr  # defers scipy

    common = sorted(set.intersection(*(set(member) for member in errors))) if errors else []
    if len(common) < 3:
        return ErrorCorrelation(None, None, 0, len(common), "fewer than 3 items graded by every member")
    values = np.array([[member[item] for item in common] for member in errors], dtype=float)
    correlations = [
        float(pearsonr(values[a], values[b]).statistic)
        for a, b in itertools.combinations(range(len(errors)), 2)
        if np.ptp(values[a]) > 0 and np.ptp(values[b]) > 0
    ]
    if not correlations:
        return ErrorCorrelation(None, None, 0, len(common), "no two members whose errors vary over the common items")
    mean = float(np.mean(correlations))
    skipped = len(errors) * (len(errors) - 1) // 2 - len(correlations)
    notes = [f"{skipped} member pairs left out: a member's errors do not vary"] if skipped else []
    effective = effective_members(len(errors), mean)
    if effective is None:
        notes.append("errors so anti-correlated that n / (1 + (n - 1) * r) has no positive denominator")
    return ErrorCorrelation(mean, effective, len(correlations), len(common), "; ".join(notes) or None)
