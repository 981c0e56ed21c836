"""The grading run kind, as a task for the run service: a user's samples graded by a GroUSE judge."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.grading.grade_kind import GRADE
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.records import ItemRecord, MetricRecord
from judges.runs.items import Item, ItemsOf
from judges.runs.modal_draws import modal_record
from judges.runs.tasks import sample_fields
from judges.types import Sample


@dataclass
class GradeTask:
    """A user's samples graded by a GroUSE judge: the full pipeline, or only `metrics` (each graded alone); with
    `draws` K > 1, each sample K times (a draw index in each request, so that no reply is reused) and per metric
    the modal verdict recorded, with the share of draws that gave it as its confidence."""

    samples: Sequence[tuple[str, Sample]]
    judge: GroundedQAJudge
    metrics: Sequence[str] | None = None
    checked: bool = False  # the caller has rendered the templates for every sample already (a pass over a file)
    draws: int = 1
    kind: str = GRADE
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
        drawn = await asyncio.gather(*(self.graded(sample, draw, item.order) for draw in range(self.draws)))
        records = drawn[0] if self.draws == 1 else {m: modal_record([d[m] for d in drawn]) for m in drawn[0]}
        return ItemRecord(item.id, records, item.order, item.draw, sample_fields(sample))

    async def graded(self, sample: Sample, draw: int, priority: int) -> dict[str, MetricRecord]:
        """One draw's verdicts on the sample: the pipeline's, or each of `metrics` alone."""
        if self.metrics is None:
            return await self.judge.judge(sample, draw, priority=priority)
        graded = await asyncio.gather(*(self.judge.grade(m, sample, draw, priority=priority) for m in self.metrics))
        return dict(zip(self.metrics, graded, strict=True))
