"""The run loop over items: started in order, each when a call slot frees, windows settled by an executor first."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from judges.calls.runtime import CallRuntime
from judges.errors import BudgetExhausted, EndpointUnusable, JudgelabError
from judges.executors.settle import Executor, Sink, forget, settle
from judges.records.usage import call_usage
from judges.runs.execution import Execution, stop_for, windows
from judges.runs.items import Item
from judges.runs.progress import Progress
from judges.runs.run_writer import Recorder
from judges.runs.task_protocol import Task


class ItemLoop:
    """One run's loop: the items in flight (a job is made only when a slot frees), the stop, the errors raised
    outside an item; each finished record goes to the writer, then to `done` (counted and summarized)."""

    def __init__(
        self,
        task: Task,
        runtime: CallRuntime,
        done: Execution,
        writer: Recorder | None,
        executor: Executor | None,
        sink: Sink | None,
        bar: Progress | None,
    ) -> None:
        self.task, self.runtime, self.done, self.writer = task, runtime, done, writer
        self.executor, self.sink, self.bar = executor, sink, bar
        self.in_flight = asyncio.Semaphore(runtime.items_in_flight(task.items_per_slot))
        self.running: set[asyncio.Task[None]] = set()
        self.errors: list[BaseException] = []

    async def one(self, item: Item) -> None:
        """Judge one item (it holds the slot `feed` took for it); a judgelab error stops the run."""
        done = self.done
        try:
            if done.stop is not None:
                return
            try:
                record = await self.task.run_item(item)
            except JudgelabError as err:
                if done.stop is None:
                    done.stop = stop_for(err)
                if not isinstance(err, BudgetExhausted):
                    for job in list(self.running):  # nothing more can be learnt from this endpoint: stop at once
                        if job is not asyncio.current_task():
                            job.cancel()
                return
        finally:
            self.in_flight.release()
        record.usage = call_usage(record.calls())
        if self.writer is not None:
            self.writer.item(record)
        done.add(record)
        if self.bar is not None:
            self.bar.item_done()

    def finished(self, job: asyncio.Task[None]) -> None:
        self.running.discard(job)
        if not job.cancelled() and job.exception() is not None:
            self.errors.append(job.exception())  # type: ignore[arg-type]

    async def drain(self) -> None:
        while self.running:
            await asyncio.wait(set(self.running))

    async def feed(self, items: Sequence[Item]) -> None:
        """Start the items in order, each when a slot is free, so the loop holds only the items in flight; with an
        executor, a window of items at a time, once the executor has answered the window's calls into the cache."""
        for window in windows(items, self.executor):
            if self.executor is not None and not await self.settled(list(window)):
                break
            for item in window:
                await self.in_flight.acquire()
                if self.done.stop is not None:
                    self.in_flight.release()
                    break
                job = asyncio.ensure_future(self.one(item))
                self.running.add(job)
                job.add_done_callback(self.finished)
            if self.done.stop is not None:
                break
        await self.drain()

    async def settled(self, window: list[Item]) -> bool:
        await self.drain()  # the previous window is judged (and the runtime free for the collecting pass)
        if self.done.stop is not None or not window:
            return False
        if self.sink is not None and self.executor is not None:
            forget(self.sink)
            try:
                await settle(window, self.task, self.runtime, self.executor, self.sink)
            except (BudgetExhausted, EndpointUnusable) as err:
                self.done.stop = stop_for(err, final=True)
                return False
        return True
