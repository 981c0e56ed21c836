"""The metric formulas as pure functions: ranked precision, statement F1, harmonic mean, cosine, fractions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fraction(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when the denominator is 0 (the metric is undefined, not 0)."""
    return numerator / denominator if denominator else None


def precision_at_each_rank(relevant: Sequence[bool]) -> list[float]:
    """precision@k for k = 1..K: relevant chunks in the top k / k."""
    hits, out = 0, []
    for k, is_relevant in enumerate(relevant, start=1):
        hits += bool(is_relevant)
        out.append(hits / k)
    return out


def ranked_context_precision(relevant: Sequence[bool]) -> float | None:
    """Ragas context precision@K: sum_k precision@k * v_k / (relevant chunks in the top K).

    None when K = 0 (nothing retrieved); 0.0 when no chunk is relevant (a useless retrieval scores 0).
    """
    if not relevant:
        return None
    n_relevant = sum(bool(v) for v in relevant)
    if n_relevant == 0:
        return 0.0
    return sum(p for p, v in zip(precision_at_each_rank(relevant), relevant) if v) / n_relevant


def statement_f1(tp: int, fp: int, fn: int) -> float | None:
    """TP / (TP + 0.5 (FP + FN)); None when there is no statement on either side."""
    return fraction(tp, tp + 0.5 * (fp + fn))


def harmonic_mean(values: Sequence[float]) -> float | None:
    """Harmonic mean; 0.0 if any value is 0; None for no values or a negative one (undefined)."""
    if not values or any(v < 0 for v in values):
        return None
    if any(v == 0 for v in values):
        return 0.0
    from scipy.stats import hmean

    return float(hmean(values))


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity in [-1, 1]; ValueError for a zero vector."""
    u, v = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(u) * np.linalg.norm(v))
    if norm == 0.0:
        raise ValueError("cosine similarity of a zero vector")
    return float(np.clip(u @ v / norm, -1.0, 1.0))
