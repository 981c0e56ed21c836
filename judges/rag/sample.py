"""Reading a Sample from a record, under judgelab's field names or the ones Ragas, GroUSE and RAGBench use."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.checked import id_problem, json_type
from judges.images.reading import ImageProblem, has_parts, parts_text
from judges.types import Image, Sample

# Field -> the record keys accepted for it, first match wins (judgelab / GroUSE / Ragas / RAGBench names).
ALIASES: dict[str, tuple[str, ...]] = {
    "input": ("input", "question", "user_input", "query"),
    "actual_output": ("actual_output", "answer", "response"),
    "references": ("references", "contexts", "retrieved_contexts", "documents"),
    "expected_output": ("expected_output", "ground_truth", "reference", "ground_truths"),
    "retrieved_ids": ("retrieved_ids",),
    "expected_ids": ("expected_ids", "reference_ids"),
    "guidelines": ("guidelines",),
    "alternative_output": ("alternative_output", "actual_output_b", "answer_b", "response_b"),
}
LIST_FIELDS = ("references", "retrieved_ids", "expected_ids")
INPUTS = tuple(ALIASES)


# The older names a `--map FIELD=KEY` may use for a field.
FIELD_ALIASES = {
    "question": "input",
    "answer": "actual_output",
    "contexts": "references",
    "ground_truth": "expected_output",
}


def _text(value: Any, field: str, key: str, where: dict[str, Any]) -> str:
    if isinstance(value, list) and field == "expected_output" and all(isinstance(v, str) for v in value):
        return "\n".join(value)  # Ragas' older `ground_truths` list
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {json_type(value)}", field=key, **where)
    return value


def _strings(value: Any, field: str, key: str, where: dict[str, Any]) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise InputError(f"expected a list, got {json_type(value)}", field=key, **where)
    if field != "references" and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        return tuple(str(v) for v in value)
    if not all(isinstance(v, str) for v in value):
        raise InputError("every item must be a string", field=key, **where)
    return tuple(value)


def _with_images(value: Any, key: str, where: dict[str, Any], images: list[Image]) -> Any:
    """The field's value with its image parts (a reference or the question that is an image, or a list of text
    and image parts) read as texts holding image markers; an unusable image is an InputError naming the field."""
    base_dir = Path(str(where["path"])).parent if where["path"] else Path(".")
    if isinstance(value, list) and any(has_parts(v) for v in value):
        return [_one_with_images(v, f"{key}.{n}", base_dir, where, images) for n, v in enumerate(value)]
    return _one_with_images(value, key, base_dir, where, images)


def _one_with_images(value: Any, label: str, base_dir: Path, where: dict[str, Any], images: list[Image]) -> Any:
    try:
        return parts_text(value, base_dir, images) if has_parts(value) else value
    except ImageProblem as problem:
        raise InputError(str(problem), field=label, **where) from None


def parse_record(
    record: Mapping[str, Any],
    *,
    default_id: str,
    path: str | None = None,
    line: int | None = None,
    mapping: Mapping[str, str] | None = None,
) -> Sample:
    """A Sample from a record; `mapping` (field -> record key) overrides the aliases."""
    where = {"path": path, "line": line}
    mapping = {FIELD_ALIASES.get(field, field): key for field, key in (mapping or {}).items()}
    values: dict[str, Any] = {}
    images: list[Image] = []
    for field, keys in ALIASES.items():
        keys = (mapping[field],) if mapping and field in mapping else keys
        key = next((k for k in keys if k in record and record[k] is not None), None)
        if key is None:
            continue
        raw = record[key]
        if field in ("input", "references"):
            raw = _with_images(raw, key, where, images)
        values[field] = _strings(raw, field, key, where) if field in LIST_FIELDS else _text(raw, field, key, where)
    sample_id = record.get("id", default_id)
    if id_problem(sample_id):
        raise InputError(str(id_problem(sample_id)), path=path, line=line, field="id")
    return Sample(id=str(sample_id), images=tuple(images), **values)
