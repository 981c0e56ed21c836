"""Reading and writing labelled-item JSONL files (the schema of `judges.labels.schema.parse_item`)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from pathlib import Path

from judges.errors import InputError
from judges.files.jsonl import append_jsonl, read_jsonl
from judges.labels.schema import LabelledItem, LabelledSet, check_consistent, parse_item


def read_labels(path: str | Path) -> LabelledSet:
    """A labelled-item JSONL file as a LabelledSet named after the file."""
    lines, items = array("l"), []
    for line, record in read_jsonl(path, expects="id, metric, label, label_type (and scale, input, actual_output)"):
        items.append(parse_item(record, path=str(path), line=line))
        lines.append(line)
    if not items:
        raise InputError("no labelled items in the file", path=str(path))
    check_consistent(zip(lines, items), path=str(path))
    return LabelledSet(Path(path).stem, tuple(items), source=str(path))


def write_labels(path: str | Path, items: Iterable[LabelledItem]) -> Path:
    """Write items as labelled-item JSONL (one record per line)."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            append_jsonl(handle, item.to_record())
    return path
