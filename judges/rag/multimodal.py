"""Multi-modal metrics: faithfulness of the answer to text and image references, and the relevance of each text or
image reference to the question, with the verdicts per statement and per reference."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from judges.images.image_parts import MARKER
from judges.rag import steps
from judges.rag.parsing import as_bool, as_text, field
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun


def reference_kind(reference: str) -> str:
    """ "image" (only an image), "text", or "mixed" (text and images)."""
    images = MARKER.findall(reference)
    if not images:
        return "text"
    return "image" if not MARKER.sub("", reference).strip() else "mixed"


async def faithfulness(run: MetricRun) -> Scored:
    """Answer statements supported by the text and image references / answer statements; per reference, the
    statements it supports."""
    supports = await steps.support(run, "answer", "contexts")
    references = list(run.sample.references or ())
    per_reference = [
        {
            "reference": number,
            "kind": reference_kind(text),
            "supports": [n for n, s in enumerate(supports, start=1) if number in s.passages],
        }
        for number, text in enumerate(references, start=1)
    ]
    details: dict[str, Any] = {"statements": [s.to_dict() for s in supports], "references": per_reference}
    if not supports:
        return Scored.null("the answer makes no statement", **details)
    return Scored(sum(s.supported for s in supports) / len(supports), details)


async def context_relevancy(run: MetricRun) -> Scored:
    """Relevant references / references (the top K): one verdict per text or image reference, on the question."""
    references = list(run.sample.references or ())[: run.settings.k]

    async def judge(number: int, reference: str) -> dict[str, Any]:
        variables = {"question": run.sample.input or "", "reference": reference}

        def parse(obj: Any) -> dict[str, Any]:
            relevant = as_bool(field(obj, "relevant"), "relevant")
            kind = reference_kind(reference)
            return {"reference": number, "kind": kind, "relevant": relevant, "reason": as_text(obj.get("reason"))}

        async def make(log: list[dict[str, Any]]) -> dict[str, Any]:
            return await run.judge.ask_json("mm_context_relevancy", variables, steps.RELEVANCE_SCHEMA, parse, log)

        return await run.step(("mm_context_relevancy", number), make)

    verdicts = list(await asyncio.gather(*(judge(n, r) for n, r in enumerate(references, start=1))))
    if not verdicts:
        return Scored.null("no reference was retrieved", references=[])
    return Scored(sum(v["relevant"] for v in verdicts) / len(verdicts), {"references": verdicts})
