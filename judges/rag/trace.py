"""TRACe (RAGBench): one labelling call returns sentence keys (relevant, utilized, per response sentence support);
relevance, utilization, completeness and adherence follow, by the paper's definitions or the popular variant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.rag.formulas import fraction
from judges.rag.parsing import as_bool, as_text, field, keyed_entries, keyed_object_schema, reason_schema
from judges.rag.rag_text import keyed_sentences
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun

POPULAR_RELEVANCE_CAP = 20  # the popular write-up's relevance: min(1, relevant sentences / 20)


@dataclass(frozen=True)
class TraceLabels:
    documents: dict[str, str]  # "0a" -> sentence
    response: dict[str, str]  # "a" -> sentence
    relevant: tuple[str, ...]
    utilized: tuple[str, ...]
    support: dict[str, dict[str, Any]]  # "a" -> {fully_supported, supporting_keys, explanation}
    unknown_keys: tuple[str, ...] = ()
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "relevant_keys": list(self.relevant),
            "utilized_keys": list(self.utilized),
            "response_sentences": {k: {"sentence": s, **self.support[k]} for k, s in self.response.items()},
            "document_sentences": self.documents,
            "unknown_keys": list(self.unknown_keys),
            "relevance_explanation": self.explanation,
        }


def _schema(doc_keys: list[str], response_keys: list[str]) -> dict[str, Any]:
    keys = {"type": "array", "items": {"enum": doc_keys}}
    entry = {
        "type": "object",
        "properties": {"explanation": reason_schema(), "fully_supported": {"type": "boolean"}, "supporting_keys": keys},
        "required": ["explanation", "fully_supported", "supporting_keys"],
    }
    return {
        "type": "object",
        "properties": {
            "relevance_explanation": reason_schema(),
            "relevant_keys": keys,
            "sentences": keyed_object_schema(response_keys, entry),
            "utilized_keys": keys,
        },
        "required": ["relevance_explanation", "relevant_keys", "sentences", "utilized_keys"],
    }


def _parse(obj: Any, documents: dict[str, str], response: dict[str, str]) -> TraceLabels:
    unknown: list[str] = []

    def keys(value: Any) -> tuple[str, ...]:
        items = value if isinstance(value, list) else []
        out: list[str] = []
        for item in (as_text(i) for i in items):
            (out if item in documents else unknown).append(item)
        return tuple(dict.fromkeys(out))

    support = {}
    for key, entry in keyed_entries(obj, "sentences", list(response)).items():
        support[key] = {
            "fully_supported": as_bool(field(entry, "fully_supported"), f"sentence {key}"),
            "supporting_keys": list(keys(entry.get("supporting_keys"))),
            "explanation": as_text(entry.get("explanation")),
        }
    return TraceLabels(
        documents,
        response,
        keys(field(obj, "relevant_keys")),
        keys(field(obj, "utilized_keys")),
        support,
        tuple(dict.fromkeys(unknown)),
        as_text(obj.get("relevance_explanation")),
    )


async def labels(run: MetricRun) -> TraceLabels:
    contexts = run.sample.references or ()
    documents = {k: s for i, doc in enumerate(contexts) for k, s in keyed_sentences(doc, str(i)).items()}
    response = keyed_sentences(run.sample.actual_output or "")

    async def make(log: list[dict[str, Any]]) -> TraceLabels:
        if not documents:
            unsupported = {"fully_supported": False, "supporting_keys": [], "explanation": "there is no context"}
            return TraceLabels(documents, response, (), (), {k: dict(unsupported) for k in response})
        variables = {
            "question": run.sample.input or "",
            "response": list(response.items()),
            "documents": [list(keyed_sentences(doc, str(i)).items()) for i, doc in enumerate(contexts)],
        }
        return await run.judge.ask_json(
            "trace_labels",
            variables,
            _schema(list(documents), list(response)),
            lambda obj: _parse(obj, documents, response),
            log,
        )

    return await run.step("trace_labels", make)


def _size(run: MetricRun, found: TraceLabels, keys: Any) -> float:
    """How much context the keys cover: sentences, or characters with --trace-by-length."""
    return sum(len(found.documents[k]) for k in keys) if run.settings.trace_by_length else float(len(list(keys)))


def _ratio(value: float | None, reason: str, found: TraceLabels) -> Scored:
    return Scored.null(reason, **found.to_dict()) if value is None else Scored(value, found.to_dict())


async def relevance(run: MetricRun) -> Scored:
    """Paper: relevant context sentences / all context sentences."""
    found = await labels(run)
    return _ratio(
        fraction(_size(run, found, found.relevant), _size(run, found, found.documents)),
        "the contexts have no sentence",
        found,
    )


async def utilization(run: MetricRun) -> Scored:
    """Paper: utilized context sentences / all context sentences."""
    found = await labels(run)
    return _ratio(
        fraction(_size(run, found, found.utilized), _size(run, found, found.documents)),
        "the contexts have no sentence",
        found,
    )


async def completeness(run: MetricRun) -> Scored:
    """Paper: |relevant and utilized| / |relevant|."""
    found = await labels(run)
    both = set(found.relevant) & set(found.utilized)
    return _ratio(
        fraction(_size(run, found, both), _size(run, found, found.relevant)), "no context sentence is relevant", found
    )


async def adherence(run: MetricRun) -> Scored:
    """Paper: 1 when every response sentence is fully supported by the contexts, else 0."""
    found = await labels(run)
    return Scored(float(all(s["fully_supported"] for s in found.support.values())), found.to_dict())


async def relevance_popular(run: MetricRun) -> Scored:
    """Popular variant: min(1, relevant sentences / 20)."""
    found = await labels(run)
    return Scored(min(1.0, len(found.relevant) / POPULAR_RELEVANCE_CAP), found.to_dict())


async def utilization_popular(run: MetricRun) -> Scored:
    """Popular variant: min(1, utilized sentences / relevant sentences)."""
    found = await labels(run)
    value = fraction(len(found.utilized), len(found.relevant))
    return _ratio(None if value is None else min(1.0, value), "no context sentence is relevant", found)
