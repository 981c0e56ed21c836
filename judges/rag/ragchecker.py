"""The RAGChecker family (and Ragas' noise sensitivity): claims of the answer and of the ground truth, checked
against each other and against each retrieved chunk."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from judges.rag import steps
from judges.rag.formulas import fraction
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun

NO_ANSWER_CLAIMS = "the answer makes no claims"
NO_TRUTH_CLAIMS = "the ground truth makes no claims"


def _share(flags: list[bool], rows: list[dict[str, Any]], empty_reason: str, **extra: Any) -> Scored:
    details = {"claims": rows, **extra}
    value = fraction(sum(flags), len(flags))
    return Scored.null(empty_reason, **details) if value is None else Scored(value, details)


async def precision(run: MetricRun) -> Scored:
    """Answer claims entailed by the ground truth / answer claims."""
    verdicts = await steps.support(run, "answer", "ground_truth")
    return _share(
        [v.supported for v in verdicts], [{**v.to_dict(), "correct": v.supported} for v in verdicts], NO_ANSWER_CLAIMS
    )


async def recall(run: MetricRun) -> Scored:
    """Ground-truth claims entailed by the answer / ground-truth claims."""
    verdicts = await steps.support(run, "ground_truth", "answer")
    return _share(
        [v.supported for v in verdicts], [{**v.to_dict(), "in_answer": v.supported} for v in verdicts], NO_TRUTH_CLAIMS
    )


async def f1(run: MetricRun) -> Scored:
    """Harmonic mean of precision and recall."""
    p, r = await asyncio.gather(precision(run), recall(run))
    details = {"precision": p.value, "recall": r.value}
    if p.value is None or r.value is None:
        return Scored.null(p.reason or r.reason or "undefined", **details)
    return Scored(0.0 if p.value + r.value == 0 else 2 * p.value * r.value / (p.value + r.value), details)


async def claim_recall(run: MetricRun) -> Scored:
    """Ground-truth claims entailed by the retrieved chunks / ground-truth claims."""
    verdicts = await steps.support(run, "ground_truth", "contexts")
    return _share([v.supported for v in verdicts], [v.to_dict() for v in verdicts], NO_TRUTH_CLAIMS)


def _relevant_chunks(truth_in_chunks: list[steps.Support]) -> set[int]:
    return {chunk for v in truth_in_chunks if v.supported for chunk in v.passages}


async def context_precision(run: MetricRun) -> Scored:
    """Relevant chunks / retrieved chunks; a chunk is relevant when it entails at least one ground-truth claim."""
    verdicts = await steps.support(run, "ground_truth", "contexts")
    n_chunks = len(run.sample.references or ())
    relevant = _relevant_chunks(verdicts)
    details = {"relevant_chunks": sorted(relevant), "chunks": n_chunks, "claims": [v.to_dict() for v in verdicts]}
    if n_chunks == 0:
        return Scored.null("no contexts were retrieved", **details)
    if not verdicts:
        return Scored.null(NO_TRUTH_CLAIMS, **details)
    return Scored(len(relevant) / n_chunks, details)


async def context_utilization(run: MetricRun) -> Scored:
    """Ground-truth claims entailed by both the chunks and the answer / ground-truth claims entailed by the chunks."""
    in_chunks, in_answer = await asyncio.gather(
        steps.support(run, "ground_truth", "contexts"), steps.support(run, "ground_truth", "answer")
    )
    retrieved = [(c, a) for c, a in zip(in_chunks, in_answer) if c.supported]
    rows = [
        {"claim": c.claim, "in_chunks": c.supported, "in_answer": a.supported} for c, a in zip(in_chunks, in_answer)
    ]
    return _share([a.supported for _, a in retrieved], rows, "no ground-truth claim is in the retrieved chunks")


async def _answer_claims_matrix(run: MetricRun) -> list[dict[str, Any]]:
    """Per answer claim: correct (entailed by the ground truth), in the chunks, which chunks, relevant or not."""
    correct, in_chunks, truth_in_chunks = await asyncio.gather(
        steps.support(run, "answer", "ground_truth"),
        steps.support(run, "answer", "contexts"),
        steps.support(run, "ground_truth", "contexts"),
    )
    relevant = _relevant_chunks(truth_in_chunks)
    rows = []
    for c, k in zip(correct, in_chunks):
        chunks = set(k.passages) if k.supported else set()
        rows.append(
            {
                "claim": c.claim,
                "correct": c.supported,
                "in_chunks": k.supported,
                "chunks": sorted(chunks),
                "in_relevant_chunk": bool(chunks & relevant),
                "in_irrelevant_chunk": bool(chunks - relevant),
            }
        )
    return rows


async def noise_sensitivity_relevant(run: MetricRun) -> Scored:
    """Incorrect answer claims entailed by a relevant chunk / answer claims (lower is better)."""
    rows = await _answer_claims_matrix(run)
    return _share([not r["correct"] and r["in_relevant_chunk"] for r in rows], rows, NO_ANSWER_CLAIMS)


async def noise_sensitivity_irrelevant(run: MetricRun) -> Scored:
    """Incorrect answer claims entailed by an irrelevant chunk and by no relevant one / answer claims (lower is
    better)."""
    rows = await _answer_claims_matrix(run)
    flags = [not r["correct"] and r["in_irrelevant_chunk"] and not r["in_relevant_chunk"] for r in rows]
    return _share(flags, rows, NO_ANSWER_CLAIMS)


async def hallucination(run: MetricRun) -> Scored:
    """Incorrect answer claims found in no chunk / answer claims (lower is better)."""
    rows = await _answer_claims_matrix(run)
    return _share([not r["correct"] and not r["in_chunks"] for r in rows], rows, NO_ANSWER_CLAIMS)


async def self_knowledge(run: MetricRun) -> Scored:
    """Correct answer claims found in no chunk / answer claims (the model's own knowledge)."""
    rows = await _answer_claims_matrix(run)
    return _share([r["correct"] and not r["in_chunks"] for r in rows], rows, NO_ANSWER_CLAIMS)


async def faithfulness(run: MetricRun) -> Scored:
    """Answer claims entailed by the retrieved chunks / answer claims."""
    verdicts = await steps.support(run, "answer", "contexts")
    return _share([v.supported for v in verdicts], [v.to_dict() for v in verdicts], NO_ANSWER_CLAIMS)
