"""Runs chosen metrics over samples on one judge: each sample's metrics concurrently, a JSONL line per finished
sample; a spent --max-cost stops new samples cleanly."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import IO, Any, Callable, Mapping, Sequence

from judges.errors import BudgetExhausted
from judges.jsonl import append_jsonl
from judges.rag.judging import SAMPLE_PRIORITY, RagJudge
from judges.rag.sample import RagSample
from judges.rag.scope import SampleScope
from judges.rag.spec import MetricResult, MetricSpec


@dataclass
class MetricsRun:
    rows: list[dict[str, Any]]  # finished samples, in input order
    stopped: str | None = None  # why the run stopped early, if it did


async def run_sample(sample: RagSample, metrics: Sequence[MetricSpec], judge: RagJudge,
                     registry: Mapping[str, MetricSpec]) -> dict[str, MetricResult]:
    """Every chosen metric on one sample (shared steps made once)."""
    scope = SampleScope(sample, judge, registry)
    results = await asyncio.gather(*(scope.result(spec.name) for spec in metrics))
    return {r.metric: r for r in results}


def sample_row(sample: RagSample, results: Mapping[str, MetricResult]) -> dict[str, Any]:
    return {"id": sample.id, "metrics": {name: result.to_dict() for name, result in results.items()}}


async def run_samples(samples: Sequence[RagSample], metrics: Sequence[MetricSpec], judge: RagJudge,
                      registry: Mapping[str, MetricSpec], *, out: IO[str] | None = None, samples_in_flight: int = 4,
                      on_done: Callable[[], None] | None = None) -> MetricsRun:
    """Each finished sample is appended to `out` at once (in finishing order); earlier samples' calls go first."""
    slots = asyncio.Semaphore(max(1, samples_in_flight))
    stopped: list[str] = []

    async def one(index: int, sample: RagSample) -> dict[str, Any] | None:
        SAMPLE_PRIORITY.set(index)  # this task's context: inherited by the steps it starts
        async with slots:
            if stopped:
                return None
            try:
                row = sample_row(sample, await run_sample(sample, metrics, judge, registry))
            except BudgetExhausted as err:
                stopped.append(str(err))
                return None
        if out is not None:
            append_jsonl(out, row)
        if on_done is not None:
            on_done()
        return row

    rows = await asyncio.gather(*(one(i, s) for i, s in enumerate(samples)))
    return MetricsRun([r for r in rows if r is not None], stopped[0] if stopped else None)
