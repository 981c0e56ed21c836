"""One sample's run: the metrics' shared judging steps (each made once), and each metric's result."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

from judges.calls.backend import CallError
from judges.judging.asking import StepFailed
from judges.rag.judging import RagJudge
from judges.rag.settings import MetricSettings
from judges.rag.spec import MetricSpec
from judges.records import MetricRecord
from judges.types import Sample, Verdict

T = TypeVar("T")
Log = list[dict[str, Any]]


async def score_sample(
    sample: Sample, metrics: Sequence[MetricSpec], judge: RagJudge, registry: Mapping[str, MetricSpec]
) -> dict[str, MetricRecord]:
    """Every chosen metric on one sample, concurrently; steps they share are made once."""
    scope = SampleScope(sample, judge, registry)
    results = await asyncio.gather(*(scope.result(spec.name) for spec in metrics))
    return {r.metric: r for r in results}


class SampleScope:
    """Memoizes steps by key (a claim extraction feeds faithfulness, recall, noise sensitivity and RAGChecker)
    and results by metric name (ragas_score reads its components)."""

    def __init__(self, sample: Sample, judge: RagJudge, registry: Mapping[str, MetricSpec]) -> None:
        self.sample, self.judge, self.registry = sample, judge, registry
        self._steps: dict[Hashable, tuple[asyncio.Task[Any], Log]] = {}
        self._logs: dict[Hashable, Log] = {}
        self._results: dict[str, asyncio.Task[MetricRecord]] = {}

    async def step(self, key: Hashable, make: Callable[[Log], Awaitable[T]], *, whole_run: bool = False) -> T:
        """The step's value, made on first use; `whole_run` steps are made once for all samples."""
        steps = self.judge.run_steps if whole_run else self._steps
        if key not in steps or _stale(steps[key][0], whole_run):
            log: Log = []
            steps[key] = (asyncio.ensure_future(make(log)), log)
        task, log = steps[key]
        self._logs[key] = log
        return await asyncio.shield(task)

    def calls(self, keys: list[Hashable]) -> Log:
        return [call for key in keys for call in self._logs.get(key, [])]

    async def result(self, name: str) -> MetricRecord:
        if name not in self._results:
            self._results[name] = asyncio.ensure_future(self._run(self.registry[name]))
        return await asyncio.shield(self._results[name])

    async def _run(self, spec: MetricSpec) -> MetricRecord:
        missing = self.sample.missing(spec.needs)
        if missing:
            return MetricRecord.not_applicable(spec.name, missing)
        run = MetricRun(self, spec)
        try:
            scored = await spec.load()(run)
        except (StepFailed, CallError) as err:
            return MetricRecord(spec.name, Verdict.failed(err.kind, str(err)), calls=run.calls())
        verdict = Verdict.null(scored.reason) if scored.value is None else Verdict.graded(float(scored.value))
        confidence = scored.confidence if scored.value is not None else None
        return MetricRecord(spec.name, verdict, scored.details, run.calls(), confidence=confidence)


def _stale(task: asyncio.Task[Any], whole_run: bool) -> bool:
    """A step to make again: one from another event loop, or a failed run-wide step (the next sample retries)."""
    if task.get_loop() is not asyncio.get_running_loop():
        return True
    return whole_run and task.done() and (task.cancelled() or task.exception() is not None)


class MetricRun:
    """What a metric function sees: the sample, the judge, the settings, its spec's options, and shared steps."""

    def __init__(self, scope: SampleScope, spec: MetricSpec) -> None:
        self.scope, self.spec = scope, spec
        self._used: list[Hashable] = []

    @property
    def sample(self) -> Sample:
        return self.scope.sample

    @property
    def judge(self) -> RagJudge:
        return self.scope.judge

    @property
    def settings(self) -> MetricSettings:
        return self.scope.judge.settings

    def option(self, name: str, default: Any = None) -> Any:
        return self.spec.options.get(name, default)

    async def step(self, key: Hashable, make: Callable[[Log], Awaitable[T]], *, whole_run: bool = False) -> T:
        """A shared step (made once per sample, or per run); its calls are listed in this metric's record."""
        if key not in self._used:
            self._used.append(key)
        return await self.scope.step(key, make, whole_run=whole_run)

    async def result(self, name: str) -> MetricRecord:
        return await self.scope.result(name)

    def calls(self) -> Log:
        return self.scope.calls(self._used)
