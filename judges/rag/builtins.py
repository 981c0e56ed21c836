"""The built-in metrics of every family, as specs with lazy targets (nothing of a metric is imported here)."""

from __future__ import annotations

from judges.rag.builtins_ragas import ragas_specs
from judges.rag.critiques import CRITERIA
from judges.rag.langchain_criteria import langchain_specs
from judges.rag.spec import IDS, A, C, G, MetricSpec, Q, criterion_spec, metric_spec


def builtin_specs() -> list[MetricSpec]:
    """Ragas, TRACe, LlamaIndex, RAGChecker, GroUSE, TruLens, multimodal, rubric and LangChain criteria metrics, in
    that order."""

    rc = "ragchecker:"
    return [
        *ragas_specs(),
        metric_spec("trace_relevance", "trace", (A, C), "trace:relevance", "relevant / all context sentences"),
        metric_spec("trace_utilization", "trace", (A, C), "trace:utilization", "utilized / all context sentences"),
        metric_spec(
            "trace_completeness", "trace", (A, C), "trace:completeness", "|relevant and utilized| / |relevant|"
        ),
        metric_spec("trace_adherence", "trace", (A, C), "trace:adherence", "1 if every answer sentence is supported"),
        metric_spec(
            "trace_relevance_popular",
            "trace",
            (A, C),
            "trace:relevance_popular",
            "popular variant: min(1, relevant sentences / 20)",
        ),
        metric_spec(
            "trace_utilization_popular",
            "trace",
            (A, C),
            "trace:utilization_popular",
            "popular variant: min(1, utilized / relevant)",
        ),
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
        *(
            metric_spec(
                f"grouse_{m}",
                "grouse",
                (Q, A, C, G),
                "grouse:judged",
                f"GroUSE {m} (the Foundation's judge)",
                options={"metric": m},
                value_range=(1.0, 5.0) if m in ("answer_relevancy", "completeness") else (0.0, 1.0),
            )
            for m in ("answer_relevancy", "completeness", "faithfulness", "usefulness")
        ),
        *(
            metric_spec(
                f"grouse_{m}",
                "grouse",
                (Q, A, C, G),
                "grouse:derived",
                f"GroUSE {m}, from relevancy / completeness",
                options={"metric": m},
            )
            for m in ("positive_acceptance", "negative_rejection")
        ),
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
        *(criterion_spec(name, definition) for name, definition in CRITERIA.items()),
        *langchain_specs(),
        metric_spec(
            "pairwise_preference",
            "pairwise",
            (Q, A, "alternative_output"),
            "pairwise:preference",
            "A (actual_output) -1, B (alternative_output) +1, tie 0; asked in both orders, disagreeing orders a tie",
            value_range=(-1.0, 1.0),
        ),
    ]
