"""Settles a window of a run's items through an executor before the run judges them: collect the misses as rows,
have the executor answer them into the reply cache, repeat while answers unlock further steps; the run then reads
them from the cache."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.runtime import CallRuntime, Replies
from judges.errors import ConfigError
from judges.executors.rows import CollectingBackend, Deferred, Row
from judges.types import FailureKind

MAX_ROUNDS = 6  # a step waits on an earlier reply (relevancy, then faithfulness; a re-ask; RAG metric steps)
COLLECT_IN_FLIGHT = 512  # items walked at once in a collecting pass (no call waits: a miss raises at once)


@dataclass
class Sink:
    """Where an executor hands what it got: replies go into the reply cache (the one join point), failures to the
    run, which records each as a failure verdict with its kind instead of calling again. The run reads the cache
    through its sink (`get`): a reply an executor made for this run counts once as a paid call, as a reply made in
    the run would, and a call the executor failed is that failure."""

    cache: ReplyCache
    keep_failures: bool = True  # False with --batch-retry: the run calls a failed row again, online
    replies: int = 0
    failures: int = 0
    cost: float = 0.0
    failed: dict[str, tuple[FailureKind, str]] = field(default_factory=dict)  # this window's
    fresh: set[str] = field(default_factory=set)  # cache keys an executor answered for this run: new, paid calls

    @property
    def mode(self) -> CacheMode:
        return self.cache.mode

    def reply(self, row: Row, completion: Completion) -> None:
        self.cache.put(row.request(), completion)
        self.fresh.add(row.custom_id)
        self.replies += 1
        self.cost += completion.cost

    def failure(self, row_id: str, kind: FailureKind, message: str) -> None:
        self.failures += 1
        self.failed[row_id] = (kind, message)

    def get(self, request: CompletionRequest) -> Completion | None:
        key = request.cache_key()
        hit = self.cache.get(request)
        if hit is not None and key in self.fresh:
            self.fresh.discard(key)  # paid once
            hit.cached = False
        if hit is None and self.keep_failures and key in self.failed:
            raise CallError(*self.failed[key])
        return hit

    def put(self, request: CompletionRequest, completion: Completion) -> None:
        self.cache.put(request, completion)

    def forget(self, request: CompletionRequest) -> None:
        self.cache.forget(request)


@runtime_checkable
class Executor(Protocol):
    """Makes the calls of `rows`, handing every reply and failure to `sink` as it lands. The run settles its items
    `window` at a time (collect the misses, have them answered, judge the window from the cache), so what an
    executor holds is bounded by a window, whatever the size of the run."""

    name: str
    window: int
    retry_failures: bool

    def begin(self, sink: Sink, out: Path | None) -> None:
        """Before the run's first window (e.g. note in `sink.fresh` the replies a stopped run already imported)."""
        ...

    async def run(self, rows: Sequence[Row], sink: Sink) -> None: ...

    def finish(self) -> None:
        """The run has read everything back: forget what was kept for a resume."""
        ...

    def close(self) -> None:
        """The run is over, finished or not: release what the executor started."""
        ...


class Task(Protocol):
    async def run_item(self, item: Any) -> object: ...


async def collect(items: Iterable[Any], task: Task, runtime: CallRuntime, cache: Replies) -> dict[str, Row]:
    """Walk `items` with a backend that notes each call the cache cannot answer; nothing is recorded or kept:
    a bounded set of walkers takes the items in order, each starting the next when its item is done."""
    backend = CollectingBackend()
    pending = iter(items)
    before = asyncio.all_tasks()  # the run's own tasks (its loop, a progress ticker): not waited for

    async def walker() -> None:
        for item in pending:  # shared by the walkers: each item is taken once
            with contextlib.suppress(Deferred):
                await task.run_item(item)  # its record (if the cache answered everything) is dropped

    settings = dataclasses.replace(runtime.settings, requests_per_minute=None, tokens_per_minute=None, max_cost=None)
    with runtime.routed_to(CallRuntime(backend, cache, settings)):  # no rate limit or budget; apart accounting
        await asyncio.gather(*(walker() for _ in range(COLLECT_IN_FLIGHT)))
        # steps started alongside a deferred one (gathered siblings) are still noting their calls
        while others := [t for t in asyncio.all_tasks() - before if t is not asyncio.current_task() and not t.done()]:
            await asyncio.gather(*others, return_exceptions=True)
    return backend.rows


def open_sink(runtime: CallRuntime, executor: Executor) -> Sink:
    """Where `executor` hands its replies: the run's reply cache, which must be read-write."""
    if not isinstance(runtime.cache, ReplyCache) or runtime.cache.mode is not CacheMode.READ_WRITE:
        raise ConfigError(f"--executor {executor.name} needs the reply cache in read-write mode (--cache-mode)")
    return Sink(runtime.cache, keep_failures=not executor.retry_failures)


async def settle(items: Sequence[Any], task: Task, runtime: CallRuntime, executor: Executor, sink: Sink) -> None:
    """Rounds of collect-then-execute over one window of items until the cache answers every call they will ask
    (or MAX_ROUNDS); then what the sink kept for them is dropped once the run has judged them (`forget`)."""
    view = ReplyCache(sink.cache.path, CacheMode.READ_ONLY, sink.cache.endpoint)
    asked: set[str] = set()
    where = f"items {items[0].order + 1:,}-{items[-1].order + 1:,}: " if items else ""
    try:
        for number in range(1, MAX_ROUNDS + 1):
            # the cache as the run will read it, without counting the executor's replies as paid: a failed call
            # fails here too, so the steps that follow a failure are collected as the run will ask them
            seen = Sink(view, keep_failures=sink.keep_failures, failed=sink.failed)
            rows = await collect(items, task, runtime, seen)
            pending = [row for key, row in rows.items() if key not in asked and key not in sink.failed]
            if not pending:
                break
            print(
                f"{executor.name}: {where}round {number}: {len(pending):,} calls to make", file=sys.stderr, flush=True
            )
            asked.update(row.custom_id for row in pending)
            await executor.run(pending, sink)
        else:
            print(
                f"{executor.name}: still pending after {MAX_ROUNDS} rounds: the run makes those calls itself",
                file=sys.stderr,
            )
    finally:
        view.close()


def forget(sink: Sink) -> None:
    """A window has been judged: its failures (and the replies it did not read back) need not be kept."""
    sink.failed.clear()
