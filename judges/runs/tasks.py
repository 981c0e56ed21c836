"""The grading run kind, as a task for the run service (a user's samples graded by a GroUSE judge), and the sample
as every kind's record keeps it."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.records import ItemRecord
from judges.records.header import RunKind
from judges.runs.items import Item, ItemsOf
from judges.types import Sample


@dataclass
class GradeTask:
    """A user's samples graded by a GroUSE judge: the full pipeline, or only `metrics` (each graded alone)."""

    samples: Sequence[tuple[str, Sample]]
    judge: GroundedQAJudge
    metrics: Sequence[str] | None = None
    checked: bool = False  # the caller has rendered the templates for every sample already (a pass over a file)
    kind: RunKind = RunKind.GRADE
    items_per_slot: int = 4
    items: ItemsOf = field(init=False)

    def __post_init__(self) -> None:
        self.items = ItemsOf(self.samples, lambda order, pair: Item(pair[0], order, pair[1]))

    def check(self) -> None:
        if not self.checked:
            check_renders(self.judge.prompts, (sample for _, sample in self.samples), self.metrics)

    def provenance(self) -> dict[str, Any]:
        return {}

    async def run_item(self, item: Item) -> ItemRecord:
        sample: Sample = item.payload
        if self.metrics is None:
            records = await self.judge.judge(sample, priority=item.order)
        else:
            graded = await asyncio.gather(*(self.judge.grade(m, sample, priority=item.order) for m in self.metrics))
            records = dict(zip(self.metrics, graded))
        return ItemRecord(item.id, records, item.order, item.draw, sample_fields(sample))


def sample_fields(sample: Sample) -> dict[str, Any]:
    """The judged sample as the record keeps it (the fields it has, but its id), so a report can show it and
    re-render the prompts sent; its images by source and hash (never their bytes)."""
    fields: dict[str, Any] = {}
    for name in (f.name for f in dataclasses.fields(sample) if f.name != "id"):
        value = getattr(sample, name)
        if name == "images":
            value = [image.to_dict() for image in value] or None
        elif isinstance(value, tuple):
            value = list(value)
        if value is not None:
            fields[name] = value
    return fields
