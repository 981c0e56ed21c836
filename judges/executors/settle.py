"""Settles a run's pending calls through an executor before the run: collect the misses as rows, have the
executor answer them into the reply cache, repeat while answers unlock further steps; the run then reads them."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from judges.calls.backend import Completion
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.runtime import CallRuntime
from judges.executors.rows import CollectingBackend, Deferred, Row
from judges.types import FailureKind

MAX_ROUNDS = 6  # a step waits on an earlier reply (relevancy, then faithfulness; a re-ask; RAG metric steps)
COLLECT_IN_FLIGHT = 512  # items walked at once in a collecting pass (no call waits: a miss raises at once)


@dataclass
class Sink:
    """Where an executor hands what it got: replies go into the reply cache (the one join point), failures to the
    run, which records each as a failure verdict with its kind instead of calling again."""

    cache: ReplyCache
    runtime: CallRuntime
    keep_failures: bool = True  # False with --batch-retry: the run calls a failed row again, online
    replies: int = 0
    failures: int = 0
    cost: float = 0.0
    failed: dict[str, tuple[FailureKind, str]] = field(default_factory=dict)

    def reply(self, row: Row, completion: Completion) -> None:
        self.cache.put(row.request(), completion)
        self.runtime.fresh.add(row.custom_id)
        self.replies += 1
        self.cost += completion.cost

    def failure(self, row_id: str, kind: FailureKind, message: str) -> None:
        self.failures += 1
        self.failed[row_id] = (kind, message)
        if self.keep_failures:
            self.runtime.failed_elsewhere[row_id] = (kind, message)


class Executor(Protocol):
    """Makes the calls of `rows`, handing every reply and failure to `sink` as it lands."""

    name: str

    def run(self, rows: Sequence[Row], sink: Sink) -> None: ...

    def finish(self) -> None:
        """The run has read everything back: forget what was kept for a resume."""
        ...


class Task(Protocol):
    @property
    def items(self) -> Sequence[Any]: ...

    async def run_item(self, item: Any) -> object: ...


async def collect(task: Task, runtime: CallRuntime, cache: ReplyCache) -> dict[str, Row]:
    """Walk every item with a backend that notes each call the cache cannot answer; nothing is recorded or kept:
    a bounded set of walkers takes the items in order, each starting the next when its item is done."""
    backend = CollectingBackend()
    pending = iter(task.items)

    async def walker() -> None:
        for item in pending:  # shared by the walkers: each item is taken once
            with contextlib.suppress(Deferred):
                await task.run_item(item)  # its record (if the cache answered everything) is dropped

    with runtime.collecting(backend, cache):
        await asyncio.gather(*(walker() for _ in range(COLLECT_IN_FLIGHT)))
        # steps started alongside a deferred one (gathered siblings) are still noting their calls
        while others := [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]:
            await asyncio.gather(*others, return_exceptions=True)
    return backend.rows


def settle(task: Task, runtime: CallRuntime, executor: Executor, *, retry_failures: bool = False) -> Sink:
    """Rounds of collect-then-execute until the cache answers every call the run will ask (or MAX_ROUNDS)."""
    if runtime.cache is None or runtime.cache.mode is not CacheMode.READ_WRITE:
        from judges.errors import ConfigError

        raise ConfigError(f"--executor {executor.name} needs the reply cache in read-write mode (--cache-mode)")
    view = ReplyCache(runtime.cache.path, CacheMode.READ_ONLY)
    sink = Sink(runtime.cache, runtime, keep_failures=not retry_failures)
    asked: set[str] = set()
    try:
        for number in range(1, MAX_ROUNDS + 1):
            rows = asyncio.run(collect(task, runtime, view))
            pending = [row for key, row in rows.items() if key not in asked and key not in sink.failed]
            if not pending:
                break
            print(f"{executor.name}: round {number}: {len(pending):,} calls to make", file=sys.stderr, flush=True)
            asked.update(row.custom_id for row in pending)
            executor.run(pending, sink)
        else:
            print(
                f"{executor.name}: still pending after {MAX_ROUNDS} rounds: the run makes those calls itself",
                file=sys.stderr,
            )
    finally:
        view.close()
    return sink
