"""The kinds of run, as tasks for the run service: unit tests, grading samples, and RAG-suite metrics."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.records import ItemRecord
from judges.runs.items import Item, ItemsOf
from judges.runs.prefix_order import in_prefix_order
from judges.suite.scoring import score_unit_test
from judges.types import Sample, UnitTest


@dataclass
class UnitTestTask:
    """Unit tests judged by a GroUSE judge, `draws` times each; every verdict is checked against its condition.
    `prefix_order`: start them in the order that lets a serial judge's server reuse the longest prompt prefix."""

    tests: Sequence[UnitTest]
    judge: GroundedQAJudge
    draws: int = 1
    kind: str = "unit_tests"
    items_per_slot: int = 4
    prefix_order: bool = False
    items: list[Item] = field(init=False)

    def __post_init__(self) -> None:
        pairs = [(draw, test) for draw in range(self.draws) for test in self.tests]
        self.items = [Item(test.id, order, test, draw) for order, (draw, test) in enumerate(pairs)]
        if self.prefix_order:
            prompts = self.judge.prompts  # a test's first call: answer relevancy (judges/judging/grouse_judge.py)
            self.items = in_prefix_order(
                self.items, lambda item: prompts.render("answer_relevancy", item.payload.sample)
            )

    def check(self) -> None:
        check_renders(self.judge.prompts, (test.sample for test in self.tests))

    def provenance(self) -> dict[str, Any]:
        return {}

    async def run_item(self, item: Item) -> ItemRecord:
        test: UnitTest = item.payload
        result = score_unit_test(test, await self.judge.judge(test.sample, item.draw, priority=item.order))
        return ItemRecord(
            item.id,
            result.metric_records(),
            item.order,
            item.draw,
            sample_fields(test.sample),
            test.test_type,
            test.set_id,
            test.source,
        )


@dataclass
class GradeTask:
    """A user's samples graded by a GroUSE judge: the full pipeline, or only `metrics` (each graded alone)."""

    samples: Sequence[tuple[str, Sample]]
    judge: GroundedQAJudge
    metrics: Sequence[str] | None = None
    checked: bool = False  # the caller has rendered the templates for every sample already (a pass over a file)
    kind: str = "grade"
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


@dataclass
class MetricsTask:
    """RAG-suite metrics on samples; each sample's shared steps (claims, questions, ...) are made once."""

    samples: Sequence[Sample]
    metrics: Sequence[Any]  # judges.rag.spec.MetricSpec
    judge: Any  # judges.rag.judging.RagJudge
    registry: Mapping[str, Any]
    kind: str = "metrics"
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
        from judges.rag.judging import SAMPLE_PRIORITY
        from judges.rag.scope import score_sample

        SAMPLE_PRIORITY.set(item.order)  # this task's context: inherited by the steps it starts
        records = await score_sample(item.payload, self.metrics, self.judge, self.registry)
        return ItemRecord(item.id, records, item.order, item.draw, sample_fields(item.payload))
