"""Reading grounded-QA samples from JSONL records, reporting every problem of the file with its line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.files.checked import id_problem
from judges.files.input_problems import RecordFields
from judges.files.record_file import RecordFile
from judges.images.reading import ImageProblem, has_parts, parts_text
from judges.types import Image, Sample

SAMPLE_FIELDS = "input, references, actual_output (and id, expected_output)"


def read_sample(fields: RecordFields, record: dict[str, Any], *, unit_test: bool = False) -> Sample | None:
    """The record's sample, or None with every field problem noted in `fields`; a unit test also needs references
    and a reference answer. A reference (and the question) may be a text, an image part `{"image": PATH|URL}` or a
    list of text and image parts; an image path is relative to the data file."""
    images: list[Image] = []
    base_dir = Path(fields.problems.path).parent
    references = fields.need(record, "references", list, nonempty=unit_test)
    if references is not None:
        references = _reference_texts(fields, references, base_dir, images)
    question = record.get("input")
    if has_parts(question):
        question = _parts(fields, question, "input", base_dir, images)
    else:
        question = fields.need(record, "input", str, nonempty=True)
    values = (
        question,
        references,
        fields.need(record, "expected_output", str, nonempty=unit_test),
        fields.need(record, "actual_output", str, nonempty=True),
    )
    if any(v is None for v in values):
        return None
    question, refs, expected, actual = values
    return Sample(
        input=question, references=tuple(refs), expected_output=expected, actual_output=actual, images=tuple(images)
    )


def _reference_texts(
    fields: RecordFields, references: list[Any], base_dir: Path, images: list[Image]
) -> list[str] | None:
    """Each reference as a text (its images as markers); None when one is unusable (each problem noted)."""
    texts = [_parts(fields, value, f"references.{n}", base_dir, images) for n, value in enumerate(references)]
    return None if any(text is None for text in texts) else [str(text) for text in texts]


def _parts(fields: RecordFields, value: Any, field: str, base_dir: Path, images: list[Image]) -> str | None:
    try:
        return parts_text(value, base_dir, images)
    except ImageProblem as problem:
        fields.add(str(problem), field)
        return None


def parse_sample(record: dict[str, Any], *, path: str, line: int) -> Sample:
    """One record's sample; InputProblems lists every problem of its fields."""
    fields = RecordFields(path, line)
    sample = read_sample(fields, record)
    if "id" in record and id_problem(record["id"]):
        fields.add(str(id_problem(record["id"])), "id")
    fields.done()
    assert sample is not None
    return sample


def load_samples(path: str | Path, limit: int | None = None) -> RecordFile[tuple[str, Sample]]:
    """(id, sample) pairs, the first `limit` of them; the id is the record's `id` or its line number. Every
    problem of the file is reported at once; the samples are read from the file as they are used, not held."""

    def pair(line: int, obj: dict[str, Any]) -> tuple[str, Sample]:
        return str(obj.get("id", line)), parse_sample(obj, path=str(path), line=line)

    def record_id(obj: dict[str, Any]) -> str | None:
        return str(obj["id"]) if "id" in obj and not id_problem(obj["id"]) else None

    return RecordFile.scan(path, pair, limit=limit, record_id=record_id, expects=SAMPLE_FIELDS)
