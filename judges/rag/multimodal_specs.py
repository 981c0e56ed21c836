"""The multimodal family's specs, registered under `judgelab.metrics` (multimodal.py is imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import A, C, MetricSpec, Q, metric_spec

LISTED = 7  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """Faithfulness and context relevancy over text and image references."""
    return [
        metric_spec(
            "mm_faithfulness",
            "multimodal",
            (A, C),
            "multimodal:faithfulness",
            "answer statements supported by the text and image references / statements",
        ),
        metric_spec(
            "mm_context_relevancy",
            "multimodal",
            (Q, C),
            "multimodal:context_relevancy",
            "text and image references relevant to the question / references",
        ),
    ]
