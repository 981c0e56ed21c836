"""The one run service: every kind of run (unit tests, grading samples, RAG metrics) goes through `execute`.

It owns the loop over items: ordering (items start in order, earlier items' calls go first), bounded items in
flight, the budget stop, the stop on an unusable endpoint, progress, streaming each finished item to
`results.jsonl`, usage accounting and the stop reason. A task only says how to judge one item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Any, Protocol

from judges.calls.runtime import CallRuntime
from judges.errors import BudgetExhausted, EndpointUnusable, JudgelabError
from judges.executors.settle import Executor, forget, open_sink, settle
from judges.files.jsonl import append_jsonl
from judges.records import ItemRecord
from judges.records.header import RunKind, Timing
from judges.records.usage import RunUsage, call_usage
from judges.runs.degraded import degraded_line
from judges.runs.execution import Execution, Stop, stop_for, windows
from judges.runs.folder import save_run
from judges.runs.heap import frozen_heap
from judges.runs.items import Item
from judges.runs.progress import INTERVAL_S, Progress
from judges.runs.run import Run
from judges.runs.summarizer import SummaryBuilder
from judges.secrets import scrub_text


class Task(Protocol):
    """A kind of run: its items, a check made before any call, and how to judge one item into its record."""

    @property
    def kind(self) -> RunKind | str: ...

    @property
    def items(self) -> Sequence[Item]: ...

    @property
    def items_per_slot(self) -> int:
        """Items in flight per call slot (a serial local judge always gets one at a time)."""
        ...

    def check(self) -> None: ...

    def provenance(self) -> dict[str, Any]:
        """What the run's config records once the items are done (e.g. the hashes of the templates used)."""
        ...

    async def run_item(self, item: Item) -> ItemRecord: ...


async def execute(
    task: Task,
    runtime: CallRuntime,
    results_path: Path | None,
    *,
    progress: bool = False,
    execution: Execution | None = None,
    executor: Executor | None = None,
) -> Execution:
    """Judge every item of `task`; each finished record is appended to `results_path` at once (and then only
    counted and summarized, not kept: `execution.records` holds the records only when there is no results file).

    A spent budget stops new items (those in flight finish their paid calls; every reply is cached). An unusable
    endpoint or another judgelab error stops everything at once. Either way every finished item is kept.
    `execution` may be passed in so a caller keeps what finished even when the loop is interrupted.
    """
    done = execution if execution is not None else Execution()
    done.kept = results_path is None
    if done.summary is None:
        done.summary = SummaryBuilder(task.kind)
    # where an executor hands its replies: the reply cache (checked read-write before anything starts), which the
    # run then reads through the sink; the executor's state for the run lives there
    sink = open_sink(runtime, executor) if executor is not None else None
    if executor is not None and sink is not None:
        executor.begin(sink, results_path.parent if results_path is not None else None)
        runtime.cache = sink
    items = task.items  # read as the run goes (a file's samples are not held)
    in_flight = asyncio.Semaphore(runtime.items_in_flight(task.items_per_slot))
    bar = _progress(task, len(items), progress, runtime)
    handle = None
    if results_path is not None:
        results_path.parent.mkdir(parents=True, exist_ok=True)
        handle = results_path.open("w", encoding="utf-8")
    running: set[asyncio.Task[None]] = set()  # the items in flight: a task is made only when a slot frees
    errors: list[BaseException] = []

    async def one(item: Item) -> None:
        try:  # holds the slot `feed` took for it
            if done.stop is not None:
                return
            try:
                record = await task.run_item(item)
            except JudgelabError as err:
                if done.stop is None:
                    done.stop = stop_for(err)
                if not isinstance(err, BudgetExhausted):
                    for job in list(running):  # nothing more can be learnt from this endpoint: stop at once
                        if job is not asyncio.current_task():
                            job.cancel()
                return
        finally:
            in_flight.release()
        record.usage = call_usage(record.calls())
        if handle is not None:
            append_jsonl(handle, record.to_json())
        done.add(record)
        if bar is not None:
            bar.item_done()

    def finished(job: asyncio.Task[None]) -> None:
        running.discard(job)
        if not job.cancelled() and job.exception() is not None:
            errors.append(job.exception())  # type: ignore[arg-type]

    async def drain() -> None:
        while running:
            await asyncio.wait(set(running))

    async def feed() -> None:
        """Start the items in order, each when a slot is free, so the loop holds only the items in flight; with an
        executor, a window of items at a time, once the executor has answered the window's calls into the cache."""
        for window in windows(items, executor):
            if executor is not None and not await settled(list(window)):
                break
            for item in window:
                await in_flight.acquire()
                if done.stop is not None:
                    in_flight.release()
                    break
                job = asyncio.ensure_future(one(item))
                running.add(job)
                job.add_done_callback(finished)
            if done.stop is not None:
                break
        await drain()

    async def settled(window: list[Item]) -> bool:
        await drain()  # the previous window is judged (and the runtime free for the collecting pass)
        if done.stop is not None or not window:
            return False
        if sink is not None and executor is not None:
            forget(sink)
            try:
                await settle(window, task, runtime, executor, sink)
            except (BudgetExhausted, EndpointUnusable) as err:
                done.stop = stop_for(err, final=True)
                return False
        return True

    ticker = asyncio.ensure_future(_tick(bar)) if bar is not None else None
    try:
        with frozen_heap():
            await feed()
        if errors:
            raise errors[0]
    finally:
        if ticker is not None:
            ticker.cancel()
        await runtime.aclose()
        if sink is not None:
            runtime.cache = sink.cache
        if handle is not None:
            handle.close()
        if bar is not None:
            bar.close()
        done.records.sort(key=lambda r: (r.draw, r.order))
    return done


def run_task(
    task: Task,
    runtime: CallRuntime,
    out: Path | None,
    config: dict[str, Any],
    *,
    progress: bool = False,
    executor: Executor | None = None,
) -> Run:
    """Run `task` to its end (or its stop) and return the Run; with `out`, the run folder is written as it goes:
    results.jsonl item by item, then run.json, summary.md and report.html, even when interrupted. An `executor`
    (opened where the run is set up) makes each window's calls before the loop reads them from the cache."""
    import time
    from datetime import datetime

    task.check()
    execution = Execution()
    started, started_at = time.perf_counter(), datetime.now(UTC).isoformat(timespec="seconds")
    try:
        results = out / "results.jsonl" if out else None
        asyncio.run(execute(task, runtime, results, progress=progress, execution=execution, executor=executor))
        if executor is not None and execution.stop is None:
            executor.finish()
    except KeyboardInterrupt:
        execution.stop = Stop("interrupted", "interrupted; rerun the same command to resume from the cache")
        raise
    except JudgelabError as err:  # raised outside an item (items' errors are stops already)
        execution.stop = execution.stop or stop_for(err)
        raise
    except Exception as err:  # a bug: the folder still says the run is cut short, and why
        message = scrub_text(f"unexpected error {type(err).__name__}: {err}".splitlines()[0][:300])
        execution.stop = Stop("crash", f"{message} (a bug in judgelab; finished items are kept)")
        raise
    finally:
        if executor is not None:
            executor.close()
        summary = execution.summary.result() if execution.summary is not None else SummaryBuilder(task.kind).result()
        if execution.stop is None and execution.finished == len(task.items):
            degraded = degraded_line(summary, config.get("fail_on_error"))
            execution.stop = Stop("degraded", degraded) if degraded else None
        if execution.stop is not None and not execution.stop.final and execution.stop.reason == "budget":
            execution.stop.message = budget_message(runtime, execution.stop.message)
        usage = RunUsage.from_json(runtime.usage.to_json())  # what the counter says now (it may count on)
        config = {**config, **task.provenance(), "model_version": execution.model_version}
        run = Run(
            task.kind,
            config,
            execution.records if execution.kept else None,
            summary,
            usage,
            execution.stop.reason if execution.stop else None,
            execution.stop.message if execution.stop else None,
            Timing(
                started_at, datetime.now(UTC).isoformat(timespec="seconds"), round(time.perf_counter() - started, 2)
            ),
            out,
        )
        if out is not None:
            save_run(run, out)
    return run


def budget_message(runtime: CallRuntime, raised: str) -> str:
    """The budget stop's line, with the spend once the calls in flight have finished: the figure run.json keeps."""
    cap, spent = runtime.settings.max_cost, runtime.usage.cost
    if cap is None:
        return raised
    return (
        f"--max-cost {cap:g} USD reached: spent {spent:.4f} USD (calls already in flight when the cap was met "
        "finished; every reply is cached)"
    )


def _progress(task: Task, total: int, enabled: bool, runtime: CallRuntime) -> Progress | None:
    if not enabled:
        return None
    import os

    unit = "test" if task.kind == RunKind.UNIT_TESTS else "sample"
    interval = float(os.environ.get("JUDGELAB_PROGRESS_INTERVAL", INTERVAL_S))
    in_flight = runtime.items_in_flight(task.items_per_slot)
    return Progress(
        task.kind.replace("_", " "), unit, total, lambda: runtime.usage, interval=interval, in_flight=in_flight
    )


async def _tick(bar: Progress, every: float = 0.5) -> None:
    """Between finished items the call counters still move: refresh them (or print the plain line when due)."""
    while True:
        await asyncio.sleep(every)
        bar.tick()
