"""The RAG-metrics run kind, as a task for the run service: each sample's metrics, its shared steps made once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.rag.judging import SAMPLE_PRIORITY, RagJudge
from judges.rag.scope import score_sample
from judges.rag.spec import MetricSpec
from judges.records import ItemRecord
from judges.records.header import RunKind
from judges.runs.items import Item, ItemsOf
from judges.runs.tasks import sample_fields
from judges.types import Sample


@dataclass
class MetricsTask:
    """RAG-suite metrics on samples; each sample's shared steps (claims, questions, ...) are made once."""

    samples: Sequence[Sample]
    metrics: Sequence[MetricSpec]
    judge: RagJudge
    registry: Mapping[str, Any]
    kind: RunKind = RunKind.METRICS
    items_per_slot: int = 1
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
        SAMPLE_PRIORITY.set(item.order)  # this task's context: inherited by the steps it starts
        records = await score_sample(item.payload, self.metrics, self.judge, self.registry)
        return ItemRecord(item.id, records, item.order, item.draw, sample_fields(item.payload))
