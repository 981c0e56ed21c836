"""Judging steps shared by several metrics, each made once per sample: claims, claim support, chunk relevance,
entities, embedding similarity."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.judging.asking import StepFailed
from judges.rag.formulas import cosine
from judges.rag.parsing import (
    as_bool,
    as_text,
    field,
    int_list,
    keyed_entries,
    keyed_object_schema,
    reason_schema,
    string_list,
)
from judges.types import FailureKind

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun

LABELS = {"answer": "answer", "ground_truth": "reference answer", "contexts": "retrieved passages"}
MAX_ITEMS = 25
CLAIMS_SCHEMA = {
    "type": "object",
    "properties": {"claims": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_ITEMS}},
    "required": ["claims"],
}
ENTITIES_SCHEMA = {
    "type": "object",
    "properties": {"entities": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_ITEMS}},
    "required": ["entities"],
}
RELEVANCE_SCHEMA = {
    "type": "object",
    "properties": {"reason": reason_schema(), "relevant": {"type": "boolean"}},
    "required": ["reason", "relevant"],
}


@dataclass(frozen=True)
class Support:
    """Whether a claim can be inferred from the passages, and which (1-based) passages support it."""

    claim: str
    supported: bool
    passages: tuple[int, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "supported": self.supported,
            "passages": list(self.passages),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ChunkVerdict:
    """A retrieved chunk (1-based rank) and whether it is relevant to the target text."""

    rank: int
    relevant: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "relevant": self.relevant, "reason": self.reason}


# A step's source text, by the name Ragas' prompts give it, and the sample field holding it.
SOURCE_FIELDS = {"answer": "actual_output", "ground_truth": "expected_output", "question": "input"}


def _text_of(run: MetricRun, source: str) -> str:
    if source == "contexts":
        return "\n\n".join(run.sample.references or ())
    return getattr(run.sample, SOURCE_FIELDS.get(source, source)) or ""


def _passages(run: MetricRun, against: str) -> list[str]:
    return list(run.sample.references or ()) if against == "contexts" else [_text_of(run, against)]


async def claims(run: MetricRun, source: str) -> list[str]:
    """The atomic, self-contained claims of the answer or the ground truth."""
    variables = {"question": run.sample.input or "", "text": _text_of(run, source), "source": LABELS[source]}

    async def make(log: list[dict[str, Any]]) -> list[str]:
        return await run.judge.ask_json("claims", variables, CLAIMS_SCHEMA, lambda obj: string_list(obj, "claims"), log)

    return await run.step(("claims", source), make)


def _support_schema(n_claims: int, n_passages: int) -> dict[str, Any]:
    entry = {
        "type": "object",
        "properties": {
            "reason": reason_schema(),
            "supported": {"type": "boolean"},
            "passages": {"type": "array", "items": {"enum": list(range(1, n_passages + 1))}},
        },
        "required": ["reason", "supported", "passages"],
    }
    keys = [str(i) for i in range(1, n_claims + 1)]
    return {"type": "object", "properties": {"verdicts": keyed_object_schema(keys, entry)}, "required": ["verdicts"]}


def _parse_support(obj: Any, claim_list: list[str], n_passages: int) -> list[Support]:
    entries = keyed_entries(obj, "verdicts", [str(i) for i in range(1, len(claim_list) + 1)])
    out = []
    for (number, entry), claim in zip(entries.items(), claim_list):
        supported = as_bool(field(entry, "supported"), f"verdict {number}: supported")
        passages = int_list(entry.get("passages"), range(1, n_passages + 1)) if supported else []
        if supported and not passages and n_passages == 1:
            passages = [1]
        out.append(Support(claim, supported, tuple(passages), as_text(entry.get("reason"))))
    return out


async def support(run: MetricRun, claims_of: str, against: str) -> list[Support]:
    """For each claim of `claims_of` (answer / ground_truth): can it be inferred from `against`
    (contexts, each a numbered passage / ground_truth / answer), and from which passages."""
    claim_list = await claims(run, claims_of)
    passages = _passages(run, against)

    async def make(log: list[dict[str, Any]]) -> list[Support]:
        if not claim_list:
            return []
        if not passages:
            return [Support(c, False, (), "there is no passage to infer it from") for c in claim_list]
        variables = {"claims": claim_list, "passages": passages, "source": LABELS[against]}
        return await run.judge.ask_json(
            "claim_support",
            variables,
            _support_schema(len(claim_list), len(passages)),
            lambda obj: _parse_support(obj, claim_list, len(passages)),
            log,
        )

    return await run.step(("support", claims_of, against), make)


def _parse_relevance(obj: Any, rank: int) -> ChunkVerdict:
    return ChunkVerdict(rank, as_bool(field(obj, "relevant"), "relevant"), as_text(obj.get("reason")))


async def chunk_relevance(run: MetricRun, target: str) -> list[ChunkVerdict]:
    """One call per chunk of the top K: is it useful for arriving at the target (ground_truth or answer)?"""
    chunks = list(run.sample.references or ())[: run.settings.k]

    async def judge_chunk(rank: int, chunk: str) -> ChunkVerdict:
        variables = {
            "question": run.sample.input or "",
            "target": _text_of(run, target),
            "target_kind": LABELS[target],
            "chunk": chunk,
        }

        async def make(log: list[dict[str, Any]]) -> ChunkVerdict:
            return await run.judge.ask_json(
                "chunk_relevance", variables, RELEVANCE_SCHEMA, lambda obj: _parse_relevance(obj, rank), log
            )

        return await run.step(("chunk_relevance", target, rank), make)

    return list(await asyncio.gather(*(judge_chunk(r, c) for r, c in enumerate(chunks, start=1))))


async def entities(run: MetricRun, source: str) -> list[str]:
    """The named entities (people, places, organizations, dates, numbers, laws, ...) of a text."""
    text = _text_of(run, source)

    async def make(log: list[dict[str, Any]]) -> list[str]:
        if not text.strip():
            return []
        return await run.judge.ask_json(
            "entities",
            {"text": text, "source": LABELS[source]},
            ENTITIES_SCHEMA,
            lambda obj: string_list(obj, "entities"),
            log,
        )

    return await run.step(("entities", source), make)


async def similarities(run: MetricRun, anchor: str, others: list[str]) -> list[float]:
    """Cosine similarity of the anchor's embedding with each other text's (can be below 0)."""
    vectors = await run.judge.embed([anchor, *others])
    try:
        return [cosine(vectors[0], vector) for vector in vectors[1:]]
    except ValueError as err:
        raise StepFailed(FailureKind.API_ERROR, f"embeddings: {err}") from None


async def similarity(run: MetricRun, first: str, second: str) -> float:
    """Cosine similarity of the embeddings of two texts."""
    return (await similarities(run, first, [second]))[0]
