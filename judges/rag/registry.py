"""The metric registry: every built-in metric as a spec with a lazy "module:function" target, plus user-defined
aspects and rubric criteria; lookups with "did you mean" and family names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from judges.errors import ConfigError
from judges.rag.spec import MetricSpec

_R = "judges.rag."
Q, A, C, G = "input", "actual_output", "references", "expected_output"
IDS = ("retrieved_ids", "expected_ids")


def _spec(name: str, family: str, needs: tuple[str, ...], target: str, description: str, **kw: object) -> MetricSpec:
    return MetricSpec(name, family, needs, _R + target, description, **kw)  # type: ignore[arg-type]


def _aspect(name: str, definition: str) -> MetricSpec:
    return _spec(
        f"ragas_aspect_{name}",
        "ragas",
        (Q, A),
        "critiques:aspect_critique",
        f"aspect critique, yes = 1: {definition}",
        options={"aspect": name, "definition": definition},
    )


def _criterion(name: str, definition: str) -> MetricSpec:
    return _spec(
        f"rubric_{name}",
        "rubric",
        (Q, A),
        "critiques:rubric",
        f"G-Eval rubric 1-5 as 0-1: {definition}",
        options={"criterion": name, "definition": definition},
    )


def _builtins() -> list[MetricSpec]:
    from judges.rag.critiques import ASPECTS, CRITERIA

    rc = "ragchecker:"
    specs = [
        _spec(
            "ragas_faithfulness",
            "ragas",
            (A, C),
            "ragas:faithfulness",
            "answer claims inferable from the contexts / answer claims",
        ),
        _spec(
            "ragas_faithfulness_sentences",
            "ragas",
            (A, C),
            "ragas:faithfulness_sentences",
            "faithful answer sentences / sentences; flags the words that deviate",
        ),
        _spec(
            "ragas_answer_relevancy",
            "ragas",
            (Q, A),
            "ragas:answer_relevancy",
            "mean cosine(question, questions generated from the answer)",
            uses_embeddings=True,
        ),
        _spec(
            "ragas_context_precision",
            "ragas",
            (Q, C, G),
            "ragas:context_precision",
            "Σ precision@k x v_k / relevant chunks in top K (relevance to the ground truth)",
        ),
        _spec(
            "ragas_context_utilization",
            "ragas",
            (Q, A, C),
            "ragas:context_utilization",
            "context precision with relevance judged against the answer",
        ),
        _spec(
            "ragas_context_recall",
            "ragas",
            (C, G),
            "ragas:context_recall",
            "ground-truth claims attributable to the contexts / ground-truth claims",
        ),
        _spec(
            "ragas_context_entity_recall",
            "ragas",
            (C, G),
            "ragas:context_entity_recall",
            "|entities in contexts and ground truth| / |entities in ground truth|",
        ),
        _spec(
            "ragas_noise_sensitivity_relevant",
            "ragas",
            (A, C, G),
            rc + "noise_sensitivity_relevant",
            "incorrect answer claims found in a relevant chunk / answer claims",
            higher_is_better=False,
        ),
        _spec(
            "ragas_noise_sensitivity_irrelevant",
            "ragas",
            (A, C, G),
            rc + "noise_sensitivity_irrelevant",
            "incorrect answer claims found only in irrelevant chunks / answer claims",
            higher_is_better=False,
        ),
        _spec(
            "ragas_answer_similarity",
            "ragas",
            (A, G),
            "ragas:answer_similarity",
            "cosine(answer, ground truth) embeddings",
            uses_judge=False,
            uses_embeddings=True,
            value_range=(-1.0, 1.0),
        ),
        _spec(
            "ragas_answer_correctness",
            "ragas",
            (A, G),
            "ragas:answer_correctness",
            "w1 x statement F1 + w2 x semantic similarity",
            uses_embeddings=True,
            value_range=(-1.0, 1.0),  # the similarity term may be negative
        ),
        *(_aspect(name, definition) for name, definition in ASPECTS.items()),
        _spec(
            "ragas_score",
            "ragas",
            (),
            "ragas:ragas_score",
            "harmonic mean of the chosen Ragas metrics",
            uses_judge=False,
        ),  # its components say whether a judge and embeddings are needed
        _spec("trace_relevance", "trace", (A, C), "trace:relevance", "relevant / all context sentences"),
        _spec("trace_utilization", "trace", (A, C), "trace:utilization", "utilized / all context sentences"),
        _spec("trace_completeness", "trace", (A, C), "trace:completeness", "|relevant and utilized| / |relevant|"),
        _spec("trace_adherence", "trace", (A, C), "trace:adherence", "1 if every answer sentence is supported"),
        _spec(
            "trace_relevance_popular",
            "trace",
            (A, C),
            "trace:relevance_popular",
            "popular variant: min(1, relevant sentences / 20)",
        ),
        _spec(
            "trace_utilization_popular",
            "trace",
            (A, C),
            "trace:utilization_popular",
            "popular variant: min(1, utilized / relevant)",
        ),
        *(
            _spec(name, "llamaindex", IDS, f"llamaindex:{name}", description, uses_judge=False)
            for name, description in (
                ("hit_rate", "1 if an expected id is in the top K"),
                ("mrr", "1 / rank of the first expected id"),
                ("precision_at_k", "expected ids in top K / top K"),
                ("recall_at_k", "expected ids in top K / expected"),
                ("ndcg", "normalized discounted cumulative gain, binary relevance"),
            )
        ),
        _spec(
            "llamaindex_correctness",
            "llamaindex",
            (Q, A, G),
            "llamaindex:correctness",
            "1-5 against the reference, passing at >= 4.0",
            value_range=(1.0, 5.0),
        ),
        _spec(
            "llamaindex_semantic_similarity",
            "llamaindex",
            (A, G),
            "llamaindex:semantic_similarity",
            "cosine(answer, reference), passing at the threshold",
            uses_judge=False,
            uses_embeddings=True,
            value_range=(-1.0, 1.0),
        ),
        _spec(
            "llamaindex_guideline_adherence",
            "llamaindex",
            (Q, A, "guidelines"),
            "llamaindex:guideline_adherence",
            "pass/fail against the sample's guidelines",
        ),
        _spec(
            "llamaindex_faithfulness",
            "llamaindex",
            (A, C),
            "llamaindex:faithfulness",
            "pass/fail: the answer is supported by the contexts",
        ),
        _spec(
            "llamaindex_relevancy",
            "llamaindex",
            (Q, A, C),
            "llamaindex:relevancy",
            "pass/fail: answer and contexts are in line with the question",
        ),
        _spec("ragchecker_precision", "ragchecker", (A, G), rc + "precision", "answer claims in the ground truth"),
        _spec("ragchecker_recall", "ragchecker", (A, G), rc + "recall", "ground-truth claims in the answer"),
        _spec("ragchecker_f1", "ragchecker", (A, G), rc + "f1", "harmonic mean of precision and recall"),
        _spec(
            "ragchecker_claim_recall",
            "ragchecker",
            (C, G),
            rc + "claim_recall",
            "ground-truth claims in the retrieved chunks",
        ),
        _spec(
            "ragchecker_context_precision",
            "ragchecker",
            (C, G),
            rc + "context_precision",
            "chunks holding a ground-truth claim / chunks",
        ),
        _spec(
            "ragchecker_context_utilization",
            "ragchecker",
            (A, C, G),
            rc + "context_utilization",
            "retrieved ground-truth claims the answer uses / retrieved ground-truth claims",
        ),
        _spec(
            "ragchecker_noise_sensitivity_relevant",
            "ragchecker",
            (A, C, G),
            rc + "noise_sensitivity_relevant",
            "incorrect answer claims from relevant chunks / answer claims",
            higher_is_better=False,
        ),
        _spec(
            "ragchecker_noise_sensitivity_irrelevant",
            "ragchecker",
            (A, C, G),
            rc + "noise_sensitivity_irrelevant",
            "incorrect answer claims from irrelevant chunks only / answer claims",
            higher_is_better=False,
        ),
        _spec(
            "ragchecker_hallucination",
            "ragchecker",
            (A, C, G),
            rc + "hallucination",
            "incorrect answer claims in no chunk / answer claims",
            higher_is_better=False,
        ),
        _spec(
            "ragchecker_self_knowledge",
            "ragchecker",
            (A, C, G),
            rc + "self_knowledge",
            "correct answer claims in no chunk / answer claims",
        ),
        _spec(
            "ragchecker_faithfulness",
            "ragchecker",
            (A, C),
            rc + "faithfulness",
            "answer claims in the retrieved chunks / answer claims",
        ),
        *(
            _spec(
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
            _spec(
                f"grouse_{m}",
                "grouse",
                (Q, A, C, G),
                "grouse:derived",
                f"GroUSE {m}, from relevancy / completeness",
                options={"metric": m},
            )
            for m in ("positive_acceptance", "negative_rejection")
        ),
        _spec(
            "trulens_context_relevance",
            "trulens",
            (Q, C),
            "trulens:context_relevance",
            "mean chunk relevance to the question, 0-3 as 0-1",
        ),
        _spec(
            "trulens_groundedness",
            "trulens",
            (A, C),
            "trulens:groundedness",
            "mean support of each answer sentence, 0-3 as 0-1",
        ),
        _spec(
            "trulens_answer_relevance",
            "trulens",
            (Q, A),
            "trulens:answer_relevance",
            "answer relevance to the question, 0-3 as 0-1",
        ),
        _spec(
            "mm_faithfulness",
            "multimodal",
            (A, C),
            "multimodal:faithfulness",
            "answer statements supported by the text and image references / statements",
        ),
        _spec(
            "mm_context_relevancy",
            "multimodal",
            (Q, C),
            "multimodal:context_relevancy",
            "text and image references relevant to the question / references",
        ),
        *(_criterion(name, definition) for name, definition in CRITERIA.items()),
    ]
    return specs


def build_registry(
    aspects: dict[str, str] | None = None, criteria: dict[str, str] | None = None
) -> dict[str, MetricSpec]:
    """Built-in metrics plus user-defined aspect critiques and rubric criteria (name -> definition)."""
    specs = _builtins()
    specs += [_aspect(n, d) for n, d in (aspects or {}).items()]
    specs += [_criterion(n, d) for n, d in (criteria or {}).items()]
    registry: dict[str, MetricSpec] = {}
    for spec in specs:
        registry[spec.name] = spec  # a user-defined one replaces a built-in of the same name
    return registry


def select(registry: dict[str, MetricSpec], names: Iterable[str]) -> list[MetricSpec]:
    """Metrics by name, by family name (ragas, trace, ...) or `all`; an unknown name is a ConfigError with hints."""
    families = {spec.family for spec in registry.values()}
    chosen: dict[str, MetricSpec] = {}
    for name in (n.strip() for n in names if n.strip()):
        if name == "all" or name in families:
            chosen.update({s.name: s for s in registry.values() if name in ("all", s.family)})
        elif name in registry:
            chosen[name] = registry[name]
        else:
            close = difflib.get_close_matches(name, [*registry, *families], n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; see `judgelab metrics --list`"
            raise ConfigError(f"unknown metric {name!r}{hint}")
    if not chosen:
        raise ConfigError("no metric chosen: give --metrics a,b (names, families or 'all')")
    return list(chosen.values())
