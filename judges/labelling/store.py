"""The labels file written: each label appended (and flushed to disk) the moment it is given (read back by
`judges.labels.label_log`)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.files.jsonl import append_jsonl
from judges.labelling.queue import QueueItem
from judges.labelling.scales import LabelScale
from judges.labels.label_log import MARKER

EVENTS = ("label", "null", "skip")


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

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        append_jsonl(handle, record)
        os.fsync(handle.fileno())
