"""The labels file: each label appended (and flushed to disk) the moment it is given; read back as a labelled set."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.labelling.queue import QueueItem
from judges.labelling.scales import LabelScale
from judges.labels.schema import LabelledSet

EVENTS = ("label", "null", "skip")
MARKER = "labelling"


def event_record(
    item: QueueItem,
    scale: LabelScale,
    annotator: str,
    event: str,
    label: float | None = None,
    note: str | None = None,
    source: str = "judgelab label serve",
) -> dict[str, Any]:
    """One line of the labels file."""
    if event not in EVENTS:
        raise ValueError(event)
    extra: dict[str, Any] = {"queue_position": item.position}
    extra.update({k: item.selection[k] for k in ("stratum", "inclusion_probability", "weight") if k in item.selection})
    if note:
        extra["note"] = note
    return {
        "id": item.id,
        "metric": item.metric,
        "label": label if event == "label" else None,
        "label_type": scale.label_type.value,
        "scale": [scale.low, scale.high],
        "annotator": annotator,
        "input": item.sample.input,
        "references": list(item.sample.references or ()),
        "expected_output": item.sample.expected_output,
        "actual_output": item.sample.actual_output,
        "extra": extra,
        MARKER: {"event": event, "at": datetime.now(UTC).isoformat(timespec="seconds"), "source": source},
    }


def append_event(path: str | Path, record: dict[str, Any]) -> None:
    """Append one line and force it to disk before returning: a crash or a closed tab loses nothing."""
    from judges.files.jsonl import append_jsonl

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        append_jsonl(handle, record)
        os.fsync(handle.fileno())


def read_events(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    from judges.files.jsonl import read_jsonl

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
    from judges.files.jsonl import read_jsonl

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
    from judges.labels.schema import check_consistent, parse_item

    kept = sorted((line, record) for line, record in latest(read_events(path)).values() if _event(record) == "label")
    numbered = [(line, parse_item(record, path=str(path), line=line)) for line, record in kept]
    if not numbered:
        raise InputError("no labels in the file yet (only nulls or skips)", path=str(path))
    check_consistent(numbered, path=str(path))
    return LabelledSet(Path(path).stem, tuple(item for _, item in numbered), source=str(path))
