"""The TruLens RAG triad: context relevance (per chunk), groundedness (per answer sentence) and answer relevance,
each graded 0-3 by the judge and reported normalized to 0-1."""

from __future__ import annotations

import asyncio
import statistics
from typing import TYPE_CHECKING, Any

from judges.rag.parsing import as_text, field, keyed_entries, keyed_object_schema, reason_schema
from judges.rag.rag_text import keyed_sentences
from judges.rag.rubric_grades import Scale, rubric_grade
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun

SCALE = Scale.points(0, 3)


async def context_relevance(run: MetricRun) -> Scored:
    """Mean over the top K chunks of the chunk's relevance to the question."""
    chunks = list(run.sample.references or ())[: run.settings.k]
    grades = await asyncio.gather(
        *(
            rubric_grade(
                run,
                "trulens_context_relevance",
                {"question": run.sample.input, "chunk": chunk},
                SCALE,
                ("trulens_context_relevance", rank),
            )
            for rank, chunk in enumerate(chunks, start=1)
        )
    )
    details = {
        "chunks": [{"rank": r, **g.to_dict(), "score": SCALE.normalize(g.value)} for r, g in enumerate(grades, start=1)]
    }
    if not grades:
        return Scored.null("no contexts were retrieved", **details)
    return Scored(statistics.fmean(SCALE.normalize(g.value) for g in grades), details)


def _parse_sentences(obj: Any, sentences: dict[str, str]) -> dict[str, dict[str, Any]]:
    out = {}
    for key, entry in keyed_entries(obj, "sentences", list(sentences)).items():
        out[key] = {
            "sentence": sentences[key],
            "grade": SCALE.parse(field(entry, "grade")),
            "reason": as_text(entry.get("reason")),
        }
    return out


async def groundedness(run: MetricRun) -> Scored:
    """Mean over the answer's sentences of how well the contexts support each (one call grades every sentence,
    so no logprob weighting)."""
    sentences = keyed_sentences(run.sample.actual_output or "")
    contexts = list(run.sample.references or ())
    entry = {
        "type": "object",
        "properties": {"reason": reason_schema(), "grade": {"enum": [0, 1, 2, 3]}},
        "required": ["reason", "grade"],
    }
    schema = {
        "type": "object",
        "properties": {"sentences": keyed_object_schema(list(sentences), entry)},
        "required": ["sentences"],
    }

    async def make(log: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        if not contexts:
            return {k: {"sentence": s, "grade": 0.0, "reason": "there is no context"} for k, s in sentences.items()}
        variables = {"sentences": list(sentences.items()), "passages": contexts}
        return await run.judge.ask_json(
            "trulens_groundedness", variables, schema, lambda obj: _parse_sentences(obj, sentences), log
        )

    graded = await run.step("trulens_groundedness", make)
    if not graded:
        return Scored.null("the answer has no sentences", sentences={})
    return Scored(statistics.fmean(SCALE.normalize(g["grade"]) for g in graded.values()), {"sentences": graded})


async def answer_relevance(run: MetricRun) -> Scored:
    """How relevant the answer is to the question."""
    grade = await rubric_grade(
        run,
        "trulens_answer_relevance",
        {"question": run.sample.input, "answer": run.sample.actual_output},
        SCALE,
        "trulens_answer_relevance",
    )
    return Scored(SCALE.normalize(grade.value), grade.to_dict(), confidence=grade.confidence)
