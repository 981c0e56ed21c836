"""Reading grounded-QA samples from JSONL records, with errors naming the file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.jsonl import read_jsonl
from judges.types import Sample


def need(record: dict[str, Any], key: str, kind: type, *, path: str, line: int, label: str | None = None) -> Any:
    """`record[key]`, which must exist and be a `kind`; otherwise an InputError naming the field."""
    label = label or key
    if key not in record:
        raise InputError("missing field", path=path, line=line, field=label)
    value = record[key]
    if not isinstance(value, kind):
        raise InputError(f"expected {kind.__name__}, got {type(value).__name__}", path=path, line=line, field=label)
    return value


def parse_sample(record: dict[str, Any], *, path: str, line: int) -> Sample:
    references = need(record, "references", list, path=path, line=line)
    if not all(isinstance(r, str) for r in references):
        raise InputError("every reference must be a string", path=path, line=line, field="references")
    return Sample(input=need(record, "input", str, path=path, line=line), references=tuple(references),
                  expected_output=need(record, "expected_output", str, path=path, line=line),
                  actual_output=need(record, "actual_output", str, path=path, line=line))


def load_samples(path: str | Path) -> list[tuple[str, Sample]]:
    """(id, sample) pairs; the id is the record's `id` or its line number."""
    return [(str(obj.get("id", line)), parse_sample(obj, path=str(path), line=line)) for line, obj in read_jsonl(path)]
