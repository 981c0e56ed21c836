"""The Ragas family's specs, registered under `judgelab.metrics` (its functions in ragas.py are imported only when they run)."""

from __future__ import annotations

from judges.rag.critiques import ASPECTS
from judges.rag.spec import A, C, G, MetricSpec, Q, aspect_spec, metric_spec

LISTED = 1  # the family's place in `judgelab metrics --list`


def specs() -> list[MetricSpec]:
    """Ragas' metrics in its own order: faithfulness, relevancy, context metrics, noise, correctness, aspects, the
    Ragas score."""
    return [
        *_answer_specs(),
        *_context_specs(),
        *_correctness_specs(),
        *(aspect_spec(name, definition) for name, definition in ASPECTS.items()),
        metric_spec(
            "ragas_score",
            "ragas",
            (),
            "ragas:ragas_score",
            "harmonic mean of the chosen Ragas metrics",
            uses_judge=False,
        ),  # its components say whether a judge and embeddings are needed
    ]


def _answer_specs() -> list[MetricSpec]:
    """Faithfulness (by claim and by sentence) and answer relevancy."""
    return [
        metric_spec(
            "ragas_faithfulness",
            "ragas",
            (A, C),
            "ragas:faithfulness",
            "answer claims inferable from the contexts / answer claims",
        ),
        metric_spec(
            "ragas_faithfulness_sentences",
            "ragas",
            (A, C),
            "ragas:faithfulness_sentences",
            "faithful answer sentences / sentences; flags the words that deviate",
        ),
        metric_spec(
            "ragas_answer_relevancy",
            "ragas",
            (Q, A),
            "ragas:answer_relevancy",
            "mean cosine(question, questions generated from the answer)",
            uses_embeddings=True,
        ),
    ]


def _context_specs() -> list[MetricSpec]:
    """The context metrics: precision, utilization, recall, entity recall."""
    return [
        metric_spec(
            "ragas_context_precision",
            "ragas",
            (Q, C, G),
            "ragas:context_precision",
            "Σ precision@k x v_k / relevant chunks in top K (relevance to the ground truth)",
        ),
        metric_spec(
            "ragas_context_utilization",
            "ragas",
            (Q, A, C),
            "ragas:context_utilization",
            "context precision with relevance judged against the answer",
        ),
        metric_spec(
            "ragas_context_recall",
            "ragas",
            (C, G),
            "ragas:context_recall",
            "ground-truth claims attributable to the contexts / ground-truth claims",
        ),
        metric_spec(
            "ragas_context_entity_recall",
            "ragas",
            (C, G),
            "ragas:context_entity_recall",
            "|entities in contexts and ground truth| / |entities in ground truth|",
        ),
    ]


def _correctness_specs() -> list[MetricSpec]:
    """Noise sensitivity (scored by RAGChecker's functions), answer similarity and answer correctness."""
    rc = "ragchecker:"
    return [
        metric_spec(
            "ragas_noise_sensitivity_relevant",
            "ragas",
            (A, C, G),
            rc + "noise_sensitivity_relevant",
            "incorrect answer claims found in a relevant chunk / answer claims",
            higher_is_better=False,
        ),
        metric_spec(
            "ragas_noise_sensitivity_irrelevant",
            "ragas",
            (A, C, G),
            rc + "noise_sensitivity_irrelevant",
            "incorrect answer claims found only in irrelevant chunks / answer claims",
            higher_is_better=False,
        ),
        metric_spec(
            "ragas_answer_similarity",
            "ragas",
            (A, G),
            "ragas:answer_similarity",
            "cosine(answer, ground truth) embeddings",
            uses_judge=False,
            uses_embeddings=True,
            value_range=(-1.0, 1.0),
        ),
        metric_spec(
            "ragas_answer_correctness",
            "ragas",
            (A, G),
            "ragas:answer_correctness",
            "w1 x statement F1 + w2 x semantic similarity",
            uses_embeddings=True,
            value_range=(-1.0, 1.0),  # the similarity term may be negative
        ),
    ]
