"""The LlamaIndex family's specs, registered under `judgelab.metrics` (llamaindex.py is imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import IDS, A, C, G, MetricSpec, Q, metric_spec

LISTED = 3  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """LlamaIndex's retrieval metrics, then its judged ones."""
    return [
        *(
            metric_spec(name, "llamaindex", IDS, f"llamaindex:{name}", description, uses_judge=False)
            for name, description in (
                ("hit_rate", "1 if an expected id is in the top K"),
                ("mrr", "1 / rank of the first expected id"),
                ("precision_at_k", "expected ids in top K / top K"),
                ("recall_at_k", "expected ids in top K / expected"),
                ("ndcg", "normalized discounted cumulative gain, binary relevance"),
            )
        ),
        metric_spec(
            "llamaindex_correctness",
            "llamaindex",
            (Q, A, G),
            "llamaindex:correctness",
            "1-5 against the reference, passing at >= 4.0",
            value_range=(1.0, 5.0),
        ),
        metric_spec(
            "llamaindex_semantic_similarity",
            "llamaindex",
            (A, G),
            "llamaindex:semantic_similarity",
            "cosine(answer, reference), passing at the threshold",
            uses_judge=False,
            uses_embeddings=True,
            value_range=(-1.0, 1.0),
        ),
        metric_spec(
            "llamaindex_guideline_adherence",
            "llamaindex",
            (Q, A, "guidelines"),
            "llamaindex:guideline_adherence",
            "pass/fail against the sample's guidelines",
        ),
        metric_spec(
            "llamaindex_faithfulness",
            "llamaindex",
            (A, C),
            "llamaindex:faithfulness",
            "pass/fail: the answer is supported by the contexts",
        ),
        metric_spec(
            "llamaindex_relevancy",
            "llamaindex",
            (Q, A, C),
            "llamaindex:relevancy",
            "pass/fail: answer and contexts are in line with the question",
        ),
    ]
