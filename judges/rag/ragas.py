"""The Ragas family: faithfulness (claims and sentences), answer relevancy, context precision / utilization /
recall / entity recall, answer similarity and correctness, and ragas_score."""

from __future__ import annotations

import asyncio
import re
import statistics
from typing import TYPE_CHECKING, Any

from judges.judging.asking import StepFailed
from judges.judging.replies import ReplyError
from judges.rag import steps
from judges.rag.formulas import fraction, harmonic_mean, precision_at_each_rank, ranked_context_precision, statement_f1
from judges.rag.parsing import as_bool, as_text, field, keyed_entries, keyed_object_schema, reason_schema, string_list
from judges.rag.rag_text import keyed_sentences, normalize_entity
from judges.rag.spec import Scored
from judges.types import FailureKind, VerdictState

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun


async def faithfulness(run: MetricRun) -> Scored:
    """Answer claims inferable from the contexts / answer claims."""
    verdicts = await steps.support(run, "answer", "contexts")
    details = {"claims": [v.to_dict() for v in verdicts]}
    if not verdicts:
        return Scored.null("the answer makes no claims", **details)
    return Scored(fraction(sum(v.supported for v in verdicts), len(verdicts)), details)


def _sentence_schema(keys: list[str]) -> dict[str, Any]:
    entry = {
        "type": "object",
        "properties": {
            "reason": reason_schema(),
            "faithful": {"type": "boolean"},
            "deviation": {"type": "string", "maxLength": 160},
            "context_says": {"type": "string", "maxLength": 200},
        },
        "required": ["reason", "faithful", "deviation", "context_says"],
    }
    return {"type": "object", "properties": {"sentences": keyed_object_schema(keys, entry)}, "required": ["sentences"]}


def _parse_sentences(obj: Any, sentences: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for key, entry in keyed_entries(obj, "sentences", list(sentences)).items():
        faithful = as_bool(field(entry, "faithful"), f"sentence {key}: faithful")
        deviation = "" if faithful else as_text(entry.get("deviation"))
        found = bool(deviation) and deviation.casefold() in sentences[key].casefold()
        out.append(
            {
                "key": key,
                "sentence": sentences[key],
                "faithful": faithful,
                "deviation": deviation,
                "deviation_found_in_sentence": found,
                "context_says": "" if faithful else as_text(entry.get("context_says")),
                "reason": as_text(entry.get("reason")),
            }
        )
    return out


async def faithfulness_sentences(run: MetricRun) -> Scored:
    """Sentence by sentence: faithful sentences / sentences; each unfaithful one names the words that deviate."""
    sentences = keyed_sentences(run.sample.actual_output or "")
    contexts = list(run.sample.references or ())

    async def make(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not contexts:
            return [
                {
                    "key": k,
                    "sentence": s,
                    "faithful": False,
                    "deviation": s,
                    "deviation_found_in_sentence": True,
                    "context_says": "",
                    "reason": "there is no context",
                }
                for k, s in sentences.items()
            ]
        variables = {"sentences": list(sentences.items()), "passages": contexts}
        return await run.judge.ask_json(
            "faithfulness_sentences",
            variables,
            _sentence_schema(list(sentences)),
            lambda obj: _parse_sentences(obj, sentences),
            log,
        )

    verdicts = await run.step("faithfulness_sentences", make)
    details = {"sentences": verdicts, "deviating": [v["key"] for v in verdicts if not v["faithful"]]}
    if not verdicts:
        return Scored.null("the answer has no sentences", **details)
    return Scored(fraction(sum(v["faithful"] for v in verdicts), len(verdicts)), details)


def _parse_questions(obj: Any, n: int) -> dict[str, Any]:
    questions = string_list(obj, "questions")[:n]
    if not questions:
        raise ReplyError("no question was generated")
    noncommittal = obj.get("noncommittal", False) if isinstance(obj, dict) else False
    return {"questions": questions, "noncommittal": as_bool(noncommittal, "noncommittal")}


async def answer_relevancy(run: MetricRun) -> Scored:
    """Mean cosine similarity between the question and N questions generated from the answer (can be < 0)."""
    n = run.settings.questions
    schema = {
        "type": "object",
        "properties": {
            "questions": {"type": "array", "items": {"type": "string", "maxLength": 200}, "minItems": n, "maxItems": n},
            "noncommittal": {"type": "boolean"},
        },
        "required": ["questions", "noncommittal"],
    }

    async def make(log: list[dict[str, Any]]) -> dict[str, Any]:
        return await run.judge.ask_json(
            "question_generation",
            {"answer": run.sample.actual_output, "n": n},
            schema,
            lambda obj: _parse_questions(obj, n),
            log,
        )

    generated = await run.step(("questions", n), make)
    question = run.sample.input or ""
    similarities = await steps.similarities(run, question, generated["questions"])
    details = {
        "questions": [{"question": q, "similarity": s} for q, s in zip(generated["questions"], similarities)],
        "noncommittal": generated["noncommittal"],
        "embeddings": run.judge.embedder.name,  # type: ignore[union-attr]
    }
    return Scored(statistics.fmean(similarities), details)


async def _ranked_precision(run: MetricRun, target: str) -> Scored:
    verdicts = await steps.chunk_relevance(run, target)
    relevant = [v.relevant for v in verdicts]
    ranked = zip(verdicts, precision_at_each_rank(relevant))
    details = {
        "k": len(verdicts),
        "relevant_count": sum(relevant),
        "chunks": [{**v.to_dict(), "precision_at_k": p} for v, p in ranked],
    }
    value = ranked_context_precision(relevant)
    if value is None:
        return Scored.null("no contexts were retrieved", **details)
    return Scored(value, details)


async def context_precision(run: MetricRun) -> Scored:
    """Σ_k precision@k x v_k / relevant chunks in the top K, v_k = chunk k useful for the ground truth."""
    return await _ranked_precision(run, "ground_truth")


async def context_utilization(run: MetricRun) -> Scored:
    """Context precision with relevance judged against the answer instead of the ground truth."""
    return await _ranked_precision(run, "answer")


async def context_recall(run: MetricRun) -> Scored:
    """Ground-truth claims attributable to the contexts / ground-truth claims."""
    verdicts = await steps.support(run, "ground_truth", "contexts")
    details = {"claims": [{**v.to_dict(), "attributed": v.supported} for v in verdicts]}
    if not verdicts:
        return Scored.null("the ground truth makes no claims", **details)
    return Scored(fraction(sum(v.supported for v in verdicts), len(verdicts)), details)


def _mentions(text: str, entity: str) -> bool:
    return bool(entity) and re.search(rf"(?<!\w){re.escape(entity)}(?!\w)", text) is not None


async def context_entity_recall(run: MetricRun) -> Scored:
    """|entities in contexts and in ground truth| / |entities in ground truth|. A ground-truth entity counts as in
    the contexts when it matches an entity extracted from them, or appears in their text (both normalized)."""
    truth, found = await asyncio.gather(steps.entities(run, "ground_truth"), steps.entities(run, "contexts"))
    context_entities = {normalize_entity(e) for e in found}
    context_text = normalize_entity(" ".join(run.sample.references or ()))
    rows = []
    for entity in truth:
        key = normalize_entity(entity)
        how = "entity" if key in context_entities else "text" if _mentions(context_text, key) else None
        rows.append({"entity": entity, "in_contexts": how is not None, "matched_by": how})
    details = {"ground_truth_entities": rows, "context_entities": found}
    if not rows:
        return Scored.null("the ground truth names no entity", **details)
    return Scored(fraction(sum(bool(r["in_contexts"]) for r in rows), len(rows)), details)


async def answer_similarity(run: MetricRun) -> Scored:
    """Cosine similarity of the embeddings of the answer and the ground truth."""
    value = await steps.similarity(run, run.sample.actual_output or "", run.sample.expected_output or "")
    return Scored(value, {"embeddings": run.judge.embedder.name})  # type: ignore[union-attr]


async def answer_correctness(run: MetricRun) -> Scored:
    """w1 x F1 + w2 x similarity (weights normalized), F1 = TP / (TP + 0.5 (FP + FN)) over statements:
    TP = answer claims the ground truth supports, FP = those it does not, FN = ground-truth claims the answer misses."""
    answer_side, truth_side = await asyncio.gather(
        steps.support(run, "answer", "ground_truth"), steps.support(run, "ground_truth", "answer")
    )
    tp = [v.claim for v in answer_side if v.supported]
    fp = [v.claim for v in answer_side if not v.supported]
    fn = [v.claim for v in truth_side if not v.supported]
    w_factual, w_semantic = run.settings.correctness_weights
    details: dict[str, Any] = {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "weights": [w_factual, w_semantic],
        "reasons": {v.claim: v.reason for v in [*answer_side, *truth_side]},
    }
    f1 = statement_f1(len(tp), len(fp), len(fn))
    details["factual_f1"] = f1
    if f1 is None:
        return Scored.null("neither the answer nor the ground truth makes a claim", **details)
    similarity = 0.0
    if w_semantic > 0:
        similarity = await steps.similarity(run, run.sample.actual_output or "", run.sample.expected_output or "")
        details["similarity"] = similarity
    score = (w_factual * f1 + w_semantic * similarity) / (w_factual + w_semantic)
    threshold = run.settings.correctness_threshold
    if threshold is not None:
        details.update(raw_score=score, threshold=threshold)
        score = float(score >= threshold)
    return Scored(score, details)


async def ragas_score(run: MetricRun) -> Scored:
    """Harmonic mean of the chosen metrics' scores (default: faithfulness, answer relevancy, context precision
    and recall); undefined (null) when one is null or negative, a failure when one failed."""
    results = await asyncio.gather(*(run.result(name) for name in run.settings.ragas_score_of))
    details = {"components": {r.metric: r.verdict.to_dict() for r in results}}
    for result in results:
        if result.verdict.state is VerdictState.FAILURE:
            raise StepFailed(
                result.verdict.failure_kind or FailureKind.API_ERROR,
                f"component {result.metric} failed: {result.verdict.message}",
            )
    nulls = [f"{r.metric} ({r.verdict.message})" for r in results if r.value is None]
    if nulls:
        return Scored.null(f"no score for {'; '.join(nulls)}", **details)
    value = harmonic_mean([r.value for r in results])  # type: ignore[misc]
    if value is None:
        return Scored.null("the harmonic mean is undefined for a negative score", **details)
    return Scored(value, details)
