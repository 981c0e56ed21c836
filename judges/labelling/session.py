"""A labelling session: one annotator working through a queue for one metric, each answer appended to the labels file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.labelling.queue import QueueItem
from judges.labelling.scales import LabelScale
from judges.labelling.store import append_event, event_record
from judges.labels.label_log import latest, read_events


@dataclass
class LabellingSession:
    """The queue, the metric and its scale and rubric, the annotator, and the labels file (read afresh each time,
    so a restarted server, or a second annotator on the same file, always sees what is on disk)."""

    items: list[QueueItem]
    metric: str
    scale: LabelScale
    rubric: str
    annotator: str
    out: Path

    def __post_init__(self) -> None:
        if not self.annotator.strip():
            raise InputError("the annotator's name must not be empty")
        self.items = [item if item.metric == self.metric else _as_metric(item, self.metric) for item in self.items]

    def answers(self) -> dict[str, dict[str, Any]]:
        """This annotator's last event per item id (label, null or skip)."""
        found = latest(read_events(self.out), annotator=self.annotator)
        return {item_id: record for (item_id, metric, _), (_, record) in found.items() if metric == self.metric}

    def resume_position(self) -> int | None:
        """The first item this annotator has neither labelled nor skipped; None when every item is done."""
        done = self.answers()
        return next((n for n, item in enumerate(self.items) if item.id not in done), None)

    def next_position(self, after: int) -> int | None:
        """The next unanswered item after `after`, else the first unanswered one before it, else None."""
        done = self.answers()
        order = list(range(after + 1, len(self.items))) + list(range(0, after + 1))
        return next((n for n in order if self.items[n].id not in done), None)

    def record(self, position: int, event: str, label: float | None = None, note: str | None = None) -> None:
        """Append the annotator's answer for the item at `position` (checked against the scale)."""
        item = self.items[position]
        if event == "label":
            if label is None or label not in self.scale.levels:
                raise ValueError(f"label {label!r} is not on the scale {self.scale.describe()}")
            label = int(label)
        elif event == "null" and not self.scale.allows_null:
            raise ValueError(f"{self.metric} takes no null label")
        append_event(self.out, event_record(item, self.scale, self.annotator, event, label, note))

    def counts(self) -> dict[str, int]:
        done = self.answers()
        events = [str(record.get("labelling", {}).get("event")) for record in done.values()]
        return {"label": events.count("label"), "null": events.count("null"), "skip": events.count("skip")}


def _as_metric(item: QueueItem, metric: str) -> QueueItem:
    """The same item labelled for another metric than the one it was chosen on."""
    from dataclasses import replace

    return replace(item, metric=metric)
