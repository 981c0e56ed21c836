"""Reading grounded-QA samples from JSONL records, reporting every problem of the file with its line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.files.input_problems import Problems, RecordFields, note_duplicate_ids, parse_records, read_records
from judges.types import Sample


def read_sample(fields: RecordFields, record: dict[str, Any], *, unit_test: bool = False) -> Sample | None:
    """The record's sample, or None with every field problem noted in `fields`; a unit test also needs references
    and a reference answer."""
    references = fields.need(record, "references", list, nonempty=unit_test)
    if references is not None and not all(isinstance(r, str) for r in references):
        fields.add("every reference must be a string", "references")
        references = None
    values = (
        fields.need(record, "input", str, nonempty=True),
        references,
        fields.need(record, "expected_output", str, nonempty=unit_test),
        fields.need(record, "actual_output", str, nonempty=True),
    )
    if any(v is None for v in values):
        return None
    question, refs, expected, actual = values
    return Sample(input=question, references=tuple(refs), expected_output=expected, actual_output=actual)


def parse_sample(record: dict[str, Any], *, path: str, line: int) -> Sample:
    """One record's sample; InputProblems lists every problem of its fields."""
    fields = RecordFields(path, line)
    sample = read_sample(fields, record)
    fields.done()
    assert sample is not None
    return sample


def load_samples(path: str | Path) -> list[tuple[str, Sample]]:
    """(id, sample) pairs; the id is the record's `id` or its line number. Every problem is reported at once."""
    problems = Problems(path)
    records = read_records(path, problems)
    parsed = parse_records(
        records, problems, lambda line, obj: (str(obj.get("id", line)), parse_sample(obj, path=str(path), line=line))
    )
    note_duplicate_ids([(line, str(obj["id"]) if "id" in obj else None) for line, obj in records], problems)
    problems.raise_if_any()
    return [pair for _, pair in parsed]
