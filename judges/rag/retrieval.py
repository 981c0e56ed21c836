"""Retrieval metrics over ids, without an LLM: hit rate, MRR, precision@k, recall@k and NDCG (binary relevance)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from judges.rag.formulas import fraction


def top_k(retrieved: Sequence[str], k: int | None) -> list[str]:
    """The first k distinct retrieved ids (a repeated id counts once, at its first rank)."""
    distinct = list(dict.fromkeys(retrieved))
    return distinct if k is None else distinct[:k]


def hit_rate(retrieved: Sequence[str], expected: set[str], k: int | None = None) -> float:
    """1.0 when any expected id is among the top k, else 0.0."""
    return float(any(doc in expected for doc in top_k(retrieved, k)))


def mrr(retrieved: Sequence[str], expected: set[str], k: int | None = None) -> float:
    """1 / rank of the first expected id in the top k; 0.0 when none is there."""
    for rank, doc in enumerate(top_k(retrieved, k), start=1):
        if doc in expected:
            return 1.0 / rank
    return 0.0


def precision_at_k(retrieved: Sequence[str], expected: set[str], k: int | None = None) -> float | None:
    """Expected ids in the top k / ids in the top k; None when nothing was retrieved."""
    top = top_k(retrieved, k)
    return fraction(sum(doc in expected for doc in top), len(top))


def recall_at_k(retrieved: Sequence[str], expected: set[str], k: int | None = None) -> float | None:
    """Expected ids in the top k / expected ids."""
    return fraction(sum(doc in expected for doc in top_k(retrieved, k)), len(expected))


def ndcg(retrieved: Sequence[str], expected: set[str], k: int | None = None) -> float | None:
    """DCG / ideal DCG with gains 1/log2(rank + 1); the ideal ranks min(|expected|, K) hits first."""
    top = top_k(retrieved, k)
    if not expected:
        return None
    if not top:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, doc in enumerate(top, start=1) if doc in expected)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(expected), len(top)) + 1))
    return dcg / ideal
