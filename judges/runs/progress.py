"""Progress of a run: items and calls done, cached hits, failures, cost and ETA; a tqdm bar on a terminal, a plain
line at most every `interval` seconds otherwise (so a CI log shows the run moving)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

INTERVAL_S = 10.0  # between plain lines when stderr is not a terminal
PACE_ITEMS = 2  # items finished after the first before a time left is estimated (with one item in flight)


def clock_text(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


class Progress:
    """Told when an item finishes (`item_done`) and ticked often (`tick`); reads the call counters from `usage`
    (an object with calls, cached_calls, failed_calls and cost: `judges.records.usage.CallCounts`). `in_flight`: how many items the run holds at once."""

    def __init__(
        self,
        label: str,
        unit: str,
        total: int,
        usage: Callable[[], Any],
        *,
        stream: TextIO | None = None,
        interval: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        tty: bool | None = None,
        in_flight: int = 1,
    ) -> None:
        self.label, self.unit, self.total, self.usage = label, unit, total, usage
        self.in_flight = max(1, in_flight)
        self.first_done: float | None = None  # when the first item finished
        self.stream = stream if stream is not None else sys.stderr
        self.interval, self.clock = interval, clock
        self.items = 0
        self.started = clock()
        self.last_line: float | None = None
        is_tty = self.stream.isatty() if tty is None else tty
        self.bar = None
        if is_tty:
            from tqdm import tqdm

            # the bar shows this estimate, not tqdm's own (the same overshoot: its first rate includes the start)
            bar_format = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
            self.bar = tqdm(
                total=total, desc=label, unit=unit, file=self.stream, dynamic_ncols=True, bar_format=bar_format
            )
        else:
            self._line()

    def calls_text(self) -> str:
        usage = self.usage()
        return f"{usage.calls} calls ({usage.cached_calls} cached, {usage.failed_calls} failed), ${usage.cost:.4f}"

    def bar_text(self) -> str:
        return f"{self.eta()}, {self.calls_text()}"

    def eta(self) -> str:
        """The time left at the pace items have finished since the first one. The first carries the start (a local
        server's model load, a first round of calls in flight together) and, divided over the items, overshot the
        main job's time tenfold; items finishing together (as many as are in flight) do not make a pace either, so
        there is no estimate until `PACE_ITEMS` (or as many as are in flight) have finished after the first."""
        paced = self.items - 1
        if self.first_done is None or paced < max(PACE_ITEMS, self.in_flight):
            return "ETA ?"
        per_item = (self.clock() - self.first_done) / paced
        return f"ETA {clock_text(per_item * (self.total - self.items))}"

    def item_done(self) -> None:
        self.items += 1
        if self.first_done is None:
            self.first_done = self.clock()
        if self.bar is not None:
            self.bar.set_postfix_str(self.bar_text(), refresh=False)
            self.bar.update()
        else:
            self.tick()

    def tick(self) -> None:
        """Refresh the bar's call counters, or print a plain line if the last one is `interval` old."""
        if self.bar is not None:
            self.bar.set_postfix_str(self.bar_text())
        elif self.last_line is None or self.clock() - self.last_line >= self.interval:
            self._line()

    def _line(self) -> None:
        now = self.clock()
        self.last_line = now
        print(
            f"{self.label}: {self.items}/{self.total} {self.unit}s, {self.calls_text()}, "
            f"{clock_text(now - self.started)} elapsed, {self.eta() if self.items < self.total else 'done'}",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(self.calls_text(), refresh=False)
            self.bar.close()
        else:
            self._line()
