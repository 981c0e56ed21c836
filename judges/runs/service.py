"""The one run service: every kind of run (unit tests, grading samples, RAG metrics) goes through `execute`.

It owns the loop over items (`item_loop.py`): ordering (items start in order, earlier items' calls go first), bounded
items in flight, the budget stop, the stop on an unusable endpoint, progress, each finished item handed to the run's
writer (`run_writer.py`: the run folder), usage accounting and the stop reason. A task only says how to judge one item.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC
from typing import Any

from judges.calls.runtime import CallRuntime
from judges.errors import JudgelabError
from judges.executors.settle import Executor, open_sink
from judges.records import ItemRecord
from judges.records.header import Timing
from judges.records.judge_identity import config_identity
from judges.records.usage import RunUsage
from judges.runs.degraded import degraded_line
from judges.runs.execution import Execution, Stop, stop_for
from judges.runs.heap import frozen_heap
from judges.runs.item_loop import ItemLoop
from judges.runs.kinds import kind_of
from judges.runs.progress import INTERVAL_S, Progress
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import Recorder
from judges.runs.summarizer import SummaryBuilder
from judges.runs.task_protocol import Task
from judges.secrets import scrub_text


async def execute(
    task: Task,
    runtime: CallRuntime,
    writer: Recorder | None,
    *,
    progress: bool = False,
    execution: Execution | None = None,
    executor: Executor | None = None,
) -> Execution:
    """Judge every item of `task`; each finished record goes through `writer` at once (and is then only counted
    and summarized, not kept: `execution.records` holds the records only when there is no writer).

    A spent budget stops new items (those in flight finish their paid calls; every reply is cached). An unusable
    endpoint or another judgelab error stops everything at once. Either way every finished item is kept.
    `execution` may be passed in so a caller keeps what finished even when the loop is interrupted.
    """
    done = execution if execution is not None else Execution()
    done.kept = writer is None  # with a writer the records live there, never held twice
    if done.summary is None:
        done.summary = SummaryBuilder(task.kind)
    # where an executor hands its replies: the reply cache (checked read-write before anything starts), which the
    # run then reads through the sink; the executor's state for the run lives there
    sink = open_sink(runtime, executor) if executor is not None else None
    if executor is not None and sink is not None:
        executor.begin(sink, writer.folder if writer is not None else None)
        runtime.cache = sink
    items = task.items  # read as the run goes (a file's samples are not held)
    bar = _progress(task, len(items), progress, runtime)
    if writer is not None:
        writer.open()
    loop = ItemLoop(task, runtime, done, writer, executor, sink, bar)
    ticker = asyncio.ensure_future(_tick(bar)) if bar is not None else None
    try:
        with frozen_heap():
            await loop.feed(items)
        if loop.errors:
            raise loop.errors[0]
    finally:
        if ticker is not None:
            ticker.cancel()
        await runtime.aclose()
        if sink is not None:
            runtime.cache = sink.cache
        if writer is not None:
            writer.flush()
        if bar is not None:
            bar.close()
        done.records.sort(key=lambda r: (r.draw, r.order))
    return done


def run_task(
    task: Task,
    runtime: CallRuntime,
    writer: Recorder | None,
    config: RunConfig | Mapping[str, Any],
    *,
    progress: bool = False,
    executor: Executor | None = None,
) -> Run:
    """Run `task` to its end (or its stop) and return the Run; with a `writer` (the caller's recorder: a run folder),
    the run is written as it goes: item by item, then the run itself, even when interrupted. An `executor` (opened
    where the run is set up) makes each window's calls before the loop reads them from the cache."""
    import time
    from datetime import datetime

    task.check()
    header = config if isinstance(config, RunConfig) else RunConfig.from_json(config, "the run's config")
    execution = Execution()
    started, started_at = time.perf_counter(), datetime.now(UTC).isoformat(timespec="seconds")
    try:
        asyncio.run(execute(task, runtime, writer, progress=progress, execution=execution, executor=executor))
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
            degraded = degraded_line(summary, header.fail_on_error)
            execution.stop = Stop("degraded", degraded) if degraded else None
        if execution.stop is not None and not execution.stop.final and execution.stop.reason == "budget":
            execution.stop.message = budget_message(runtime, execution.stop.message)
        usage = RunUsage.from_json(runtime.usage.to_json())  # what the counter says now (it may count on)
        ended = header.extended({**task.provenance(), "model_version": execution.model_version})
        identity = config_identity(ended.to_json(), execution.model_names, execution.fingerprints)
        run = Run(
            task.kind,
            ended.extended({"judge_identity": identity.to_json()}),  # who judged: run.json's record of the judge
            execution.records if execution.kept else held_records(writer),
            summary,
            usage,
            execution.stop.reason if execution.stop else None,
            execution.stop.message if execution.stop else None,
            Timing(
                started_at, datetime.now(UTC).isoformat(timespec="seconds"), round(time.perf_counter() - started, 2)
            ),
            writer.folder if writer is not None else None,
        )
        if writer is not None:
            writer.finish(run)
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

    unit = kind_of(task.kind).unit
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


def held_records(writer: Recorder | None) -> list[ItemRecord] | None:
    """The records of a run written to no folder, read back from the recorder that holds them (None: a folder's run
    reads them from its results.jsonl)."""
    return list(writer.items()) if writer is not None and writer.folder is None else None
