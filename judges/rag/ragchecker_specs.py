"""The RAGChecker family's specs, registered under `judgelab.metrics` (ragchecker.py is imported only when they run)."""

from __future__ import annotations

from judges.rag.spec import A, C, G, MetricSpec, metric_spec

LISTED = 4  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """RAGChecker's overall, retriever and generator metrics."""

    rc = "ragchecker:"
    return [
        metric_spec(
            "ragchecker_precision", "ragchecker", (A, G), rc + "precision", "answer claims in the ground truth"
        ),
        metric_spec("ragchecker_recall", "ragchecker", (A, G), rc + "recall", "ground-truth claims in the answer"),
        metric_spec("ragchecker_f1", "ragchecker", (A, G), rc + "f1", "harmonic mean of precision and recall"),
        metric_spec(
            "ragchecker_claim_recall",
            "ragchecker",
            (C, G),
            rc + "claim_recall",
            "ground-truth claims in the retrieved chunks",
        ),
        metric_spec(
            "ragchecker_context_precision",
            "ragchecker",
            (C, G),
            rc + "context_precision",
            "chunks holding a ground-truth claim / chunks",
        ),
        metric_spec(
            "ragchecker_context_utilization",
            "ragchecker",
            (A, C, G),
            rc + "context_utilization",
            "retrieved ground-truth claims the answer uses / retrieved ground-truth claims",
        ),
        metric_spec(
            "ragchecker_noise_sensitivity_relevant",
            "ragchecker",
            (A, C, G),
            rc + "noise_sensitivity_relevant",
            "incorrect answer claims from relevant chunks / answer claims",
            higher_is_better=False,
        ),
        metric_spec(
            "ragchecker_noise_sensitivity_irrelevant",
            "ragchecker",
            (A, C, G),
            rc + "noise_sensitivity_irrelevant",
            "incorrect answer claims from irrelevant chunks only / answer claims",
            higher_is_better=False,
        ),
        metric_spec(
            "ragchecker_hallucination",
            "ragchecker",
            (A, C, G),
            rc + "hallucination",
            "incorrect answer claims in no chunk / answer claims",
            higher_is_better=False,
        ),
        metric_spec(
            "ragchecker_self_knowledge",
            "ragchecker",
            (A, C, G),
            rc + "self_knowledge",
            "correct answer claims in no chunk / answer claims",
        ),
        metric_spec(
            "ragchecker_faithfulness",
            "ragchecker",
            (A, C),
            rc + "faithfulness",
            "answer claims in the retrieved chunks / answer claims",
        ),
    ]
