"""The LlamaIndex family: retrieval metrics over ids (no LLM), correctness 1-5, semantic similarity with a pass
mark, guideline adherence, and pass/fail faithfulness and relevancy."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from judges.rag import retrieval, steps
from judges.rag.rubric_grades import Scale, rubric_grade
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun


def _ids(run: MetricRun, measure: Callable[..., float | None], empty_reason: str) -> Scored:
    retrieved = list(run.sample.retrieved_ids or ())
    expected = set(run.sample.expected_ids or ())
    value = measure(retrieved, expected, run.settings.k)
    details = {
        "k": run.settings.k,
        "retrieved_top_k": retrieval.top_k(retrieved, run.settings.k),
        "expected": sorted(expected),
    }
    return Scored.null(empty_reason, **details) if value is None else Scored(value, details)


async def hit_rate(run: MetricRun) -> Scored:
    return _ids(run, retrieval.hit_rate, "")


async def mrr(run: MetricRun) -> Scored:
    return _ids(run, retrieval.mrr, "")


async def precision_at_k(run: MetricRun) -> Scored:
    return _ids(run, retrieval.precision_at_k, "nothing was retrieved")


async def recall_at_k(run: MetricRun) -> Scored:
    return _ids(run, retrieval.recall_at_k, "no expected id")


async def ndcg(run: MetricRun) -> Scored:
    return _ids(run, retrieval.ndcg, "no expected id")


def _variables(run: MetricRun) -> dict[str, object]:
    s = run.sample
    return {
        "question": s.input or "",
        "answer": s.actual_output or "",
        "ground_truth": s.expected_output or "",
        "contexts": list(s.references or ()),
        "guidelines": s.guidelines or "",
    }


async def correctness(run: MetricRun) -> Scored:
    """1-5 against the reference answer, with feedback; passing at >= 4.0."""
    grade = await rubric_grade(run, "llamaindex_correctness", _variables(run), Scale.points(1, 5), "li_correctness")
    threshold = run.settings.correctness_pass
    details = {**grade.to_dict(), "passing": grade.value >= threshold, "pass_mark": threshold}
    return Scored(grade.value, details, confidence=grade.confidence)


async def semantic_similarity(run: MetricRun) -> Scored:
    """Cosine similarity of answer and reference answer embeddings; passing at the threshold (default 0.8)."""
    value = await steps.similarity(run, run.sample.actual_output or "", run.sample.expected_output or "")
    threshold = run.settings.similarity_threshold
    return Scored(value, {"passing": value >= threshold, "threshold": threshold, "embeddings": run.judge.embedder.name})  # type: ignore[union-attr]


async def _pass_fail(run: MetricRun, template: str) -> Scored:
    grade = await rubric_grade(run, template, _variables(run), Scale.binary(), template)
    return Scored(grade.value, {**grade.to_dict(), "passing": grade.value >= 0.5}, confidence=grade.confidence)


async def guideline_adherence(run: MetricRun) -> Scored:
    """Pass (1) / fail (0), with feedback, against the sample's guidelines."""
    return await _pass_fail(run, "llamaindex_guidelines")


async def faithfulness(run: MetricRun) -> Scored:
    """Pass (1) when the answer is supported by the contexts, else fail (0)."""
    return await _pass_fail(run, "llamaindex_faithfulness")


async def relevancy(run: MetricRun) -> Scored:
    """Pass (1) when the answer and the retrieved contexts are in line with the question, else fail (0)."""
    return await _pass_fail(run, "llamaindex_relevancy")
