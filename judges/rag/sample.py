"""A RAG sample (question, answer, ranked contexts, ground truth, ids, guidelines) read from a record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judges.errors import InputError

# Field -> the record keys accepted for it, first match wins (judgelab / GroUSE / Ragas / RAGBench names).
ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "input", "user_input", "query"),
    "answer": ("answer", "actual_output", "response"),
    "contexts": ("contexts", "references", "retrieved_contexts", "documents"),
    "ground_truth": ("ground_truth", "expected_output", "reference", "ground_truths"),
    "retrieved_ids": ("retrieved_ids",),
    "expected_ids": ("expected_ids", "reference_ids"),
    "guidelines": ("guidelines",),
}
LIST_FIELDS = ("contexts", "retrieved_ids", "expected_ids")
INPUTS = tuple(ALIASES)


@dataclass(frozen=True)
class RagSample:
    """One sample; a field is None when the record does not have it. Contexts are in rank order."""

    id: str
    question: str | None = None
    answer: str | None = None
    contexts: tuple[str, ...] | None = None
    ground_truth: str | None = None
    retrieved_ids: tuple[str, ...] | None = None
    expected_ids: tuple[str, ...] | None = None
    guidelines: str | None = None

    def missing(self, needs: tuple[str, ...]) -> list[str]:
        """The needed inputs this sample lacks. Empty contexts and retrieved ids are present (a retriever may
        return nothing); an empty expected_ids list or a blank text is missing."""
        absent = []
        for name in needs:
            value = getattr(self, name)
            blank = isinstance(value, str) and not value.strip()
            if value is None or blank or (name == "expected_ids" and not value):
                absent.append(name)
        return absent


def _text(value: Any, field: str, where: dict[str, Any]) -> str:
    if isinstance(value, list) and field == "ground_truth" and all(isinstance(v, str) for v in value):
        return "\n".join(value)  # Ragas' older `ground_truths` list
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", field=field, **where)
    return value


def _strings(value: Any, field: str, where: dict[str, Any]) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise InputError(f"expected a list, got {type(value).__name__}", field=field, **where)
    if field != "contexts" and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        return tuple(str(v) for v in value)
    if not all(isinstance(v, str) for v in value):
        raise InputError("every item must be a string", field=field, **where)
    return tuple(value)


def parse_record(
    record: Mapping[str, Any],
    *,
    default_id: str,
    path: str | None = None,
    line: int | None = None,
    mapping: Mapping[str, str] | None = None,
) -> RagSample:
    """A RagSample from a record; `mapping` (field -> record key) overrides the aliases."""
    where = {"path": path, "line": line}
    values: dict[str, Any] = {}
    for field, keys in ALIASES.items():
        keys = (mapping[field],) if mapping and field in mapping else keys
        key = next((k for k in keys if k in record and record[k] is not None), None)
        if key is None:
            continue
        raw = record[key]
        values[field] = _strings(raw, key, where) if field in LIST_FIELDS else _text(raw, key, where)
    sample_id = record.get("id", default_id)
    return RagSample(id=str(sample_id), **values)
