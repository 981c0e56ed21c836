"""The TruLens family's specs, registered under `judgelab.metrics` (its functions in trulens.py are imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import A, C, MetricSpec, Q, metric_spec

LISTED = 6  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """TruLens' context relevance, groundedness and answer relevance (0-3 as 0-1)."""
    return [
        metric_spec(
            "trulens_context_relevance",
            "trulens",
            (Q, C),
            "trulens:context_relevance",
            "mean chunk relevance to the question, 0-3 as 0-1",
        ),
        metric_spec(
            "trulens_groundedness",
            "trulens",
            (A, C),
            "trulens:groundedness",
            "mean support of each answer sentence, 0-3 as 0-1",
        ),
        metric_spec(
            "trulens_answer_relevance",
            "trulens",
            (Q, A),
            "trulens:answer_relevance",
            "answer relevance to the question, 0-3 as 0-1",
        ),
    ]
