"""The RAG-metrics run kind, as a task for the run service: each sample's metrics, its shared steps made once."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.rag.judging import SAMPLE_DRAW, SAMPLE_PRIORITY, RagJudge
from judges.rag.metrics_kind import METRICS
from judges.rag.scope import score_sample
from judges.rag.spec import MetricSpec
from judges.records import ItemRecord, MetricRecord
from judges.runs.items import Item, ItemsOf
from judges.runs.modal_draws import modal_record
from judges.runs.tasks import sample_fields
from judges.types import Sample


@dataclass
class MetricsTask:
    """RAG-suite metrics on samples; each sample's shared steps (claims, questions, ...) are made once per draw;
    with `draws` K > 1, per metric the modal value of K draws, with the share of draws that gave it as its
    confidence."""

    samples: Sequence[Sample]
    metrics: Sequence[MetricSpec]
    judge: RagJudge
    registry: Mapping[str, Any]
    kind: str = METRICS
    items_per_slot: int = 1
    draws: int = 1
    items: ItemsOf = field(init=False)

    def __post_init__(self) -> None:
        self.items = ItemsOf(self.samples, lambda order, sample: Item(sample.id, order, sample))

    def check(self) -> None:
        return None  # metric templates are rendered from code-built variables; inputs are checked on loading

    def provenance(self) -> dict[str, Any]:
        return {
            "rag_prompts_sha256": self.judge.prompts.hashes(),  # the templates the metrics used
            "metric_info": {
                spec.name: {
                    "family": spec.family,
                    "higher_is_better": spec.higher_is_better,
                    "range": list(spec.value_range),
                }
                for spec in self.metrics
            },
        }

    async def run_item(self, item: Item) -> ItemRecord:
        if self.draws == 1:
            records = await self.scored(item, 0)
        else:  # each draw in its own task, so its own context
            drawn = await asyncio.gather(*(self.scored(item, draw) for draw in range(self.draws)))
            records = {metric: modal_record([d[metric] for d in drawn]) for metric in drawn[0]}
        return ItemRecord(item.id, records, item.order, item.draw, sample_fields(item.payload))

    async def scored(self, item: Item, draw: int) -> dict[str, MetricRecord]:
        SAMPLE_PRIORITY.set(item.order)  # this task's context: inherited by the steps it starts
        SAMPLE_DRAW.set(draw)
        return await score_sample(item.payload, self.metrics, self.judge, self.registry)
