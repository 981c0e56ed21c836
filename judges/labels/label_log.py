"""A labels file read back (the log judgelab's labelling commands append to): its events, the latest label of each
(item, metric, annotator), and the labelled set it holds."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.jsonl import read_jsonl
from judges.labels.schema import LabelledSet, check_consistent, parse_item

MARKER = "labelling"  # the object on every line of a labels file: the event, its time and source


def read_events(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    path = Path(path)
    return list(read_jsonl(path)) if path.is_file() and path.stat().st_size else []


def _event(record: dict[str, Any]) -> str:
    marker = record.get(MARKER)
    return str(marker.get("event", "label")) if isinstance(marker, dict) else "label"


def latest(
    events: Iterable[tuple[int, dict[str, Any]]], *, annotator: str | None = None
) -> dict[tuple[str, str, str], tuple[int, dict[str, Any]]]:
    """The last event per (id, metric, annotator); a skip never replaces a label or a null."""
    out: dict[tuple[str, str, str], tuple[int, dict[str, Any]]] = {}
    for line, record in events:
        who = str(record.get("annotator") or "human")
        if annotator is not None and who != annotator:
            continue
        key = (str(record.get("id")), str(record.get("metric")), who)
        if _event(record) == "skip" and key in out and _event(out[key][1]) != "skip":
            continue
        out[key] = (line, record)
    return out


def is_label_log(path: str | Path) -> bool:
    """A labels file written by judgelab's labelling commands (its first line has the `labelling` object)."""
    if Path(path).suffix.lower() != ".jsonl":
        return False
    for _, record in read_jsonl(path):
        return isinstance(record.get(MARKER), dict)
    return False


def read_label_log(path: str | Path) -> LabelledSet:
    """The labelled set of a labels file: the last label of each (item, metric, annotator), nulls and skips left out.

    Every line is a labelled-item record (`judges.labels.schema.parse_item`) with the annotator, the sample and,
    under `extra`, the note and the queue's selection record (inclusion probability, weight, stratum), plus a
    `labelling` object: the event (`label`; `null`, the annotator's "not applicable"; or `skip`), its time and
    source. The file is a log: going back and labelling again appends a new line, and the last label of an
    (item, metric, annotator) wins; skips only move the annotator on. Read as a labelled set, nulls are left
    out (a label is a number), so a file without nulls, skips or corrections is a plain labelled-item JSONL.
    """
    kept = sorted((line, record) for line, record in latest(read_events(path)).values() if _event(record) == "label")
    numbered = [(line, parse_item(record, path=str(path), line=line)) for line, record in kept]
    if not numbered:
        raise InputError("no labels in the file yet (only nulls or skips)", path=str(path))
    check_consistent(numbered, path=str(path))
    return LabelledSet(Path(path).stem, tuple(item for _, item in numbered), source=str(path))
