"""What a run's loop produced (`Execution`: finished count, running summary, the stop) and how it takes its items."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from judges.errors import BudgetExhausted, CacheBroken, EndpointUnusable, JudgelabError
from judges.records import ItemRecord
from judges.records.header import StopReason
from judges.records.judge_identity import reply_counts
from judges.runs.items import Item
from judges.runs.summarizer import SummaryBuilder


@dataclass
class Stop:
    """Why a run ended before its last item: "budget", "endpoint_unusable", "cache" (the cache broke mid-run),
    "error", "interrupted" or "crash" (an unforeseen error: a bug)."""

    reason: StopReason
    message: str
    final: bool = False  # its message is complete as raised (an executor's estimate before it submitted anything)


@dataclass(repr=False)
class Execution:
    """What `execute` produced: how many items finished, their running summary, the model version a call reported,
    the stop (if the run ended early), and the finished records themselves only when they are `kept` (a run
    without a results file); a run that streams its records to results.jsonl holds none of them."""

    kept: bool = True
    records: list[ItemRecord] = field(default_factory=list)
    finished: int = 0
    summary: SummaryBuilder | None = None
    model_version: str | None = None
    stop: Stop | None = None
    model_names: Counter[str] = field(default_factory=Counter)  # the replies' model names and fingerprints, counted
    fingerprints: Counter[str] = field(default_factory=Counter)

    def __repr__(self) -> str:
        # short: asyncio.run formats the finished main task's result (this) when it restores the SIGINT handler,
        # and a repr of every record would cost a run tens of milliseconds
        return f"Execution({self.finished} records, stop={self.stop!r})"

    def add(self, record: ItemRecord) -> None:
        self.finished += 1
        if self.summary is not None:
            self.summary.add(record)
        if self.model_version is None:
            self.model_version = model_version(record)
        names, prints = reply_counts(record.calls())
        self.model_names.update(names)
        self.fingerprints.update(prints)
        if self.kept:
            self.records.append(record)


def stop_for(err: JudgelabError, *, final: bool = False) -> Stop:
    if isinstance(err, BudgetExhausted):
        return Stop("budget", str(err), final)
    if isinstance(err, EndpointUnusable):
        return Stop("endpoint_unusable", str(err), final)
    if isinstance(err, CacheBroken):
        return Stop("cache", str(err))
    return Stop("error", str(err))


def model_version(record: ItemRecord) -> str | None:
    """The model version the provider reported (its fingerprint or served model id), if a call of `record` said."""
    for call in record.calls():
        if call.get("model_version"):
            return str(call["model_version"])
    return None


def windows(items: Iterable[Item], executor: Any) -> Iterator[Iterable[Item]]:
    """The items as one stream, or, with an executor, in windows of `executor.window` items."""
    if executor is None:
        yield items
        return
    source = iter(items)
    while window := list(itertools.islice(source, executor.window)):
        yield window
