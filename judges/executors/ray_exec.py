"""`--executor ray`: rows go out as a Ray Dataset to a pool of judge workers (actors); their replies stream back
to this driver, which alone writes the reply cache. Ray is imported only here, only when asked for."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.calls.backend import Completion
from judges.errors import BackendUnavailable, EndpointUnusable
from judges.executors.ray_worker import UNUSABLE, JudgeWorker, WorkerSpec
from judges.executors.rows import Row
from judges.executors.settle import Sink
from judges.types import FailureKind

ROWS_PER_BATCH = 64  # rows handed to a worker at once (it runs up to --concurrency of them in parallel)
# items settled at once (--executor-window): the driver holds one window's rows (their prompts, their JSON for Ray,
# Ray's copy), and each window costs one Ray Data job per round of steps
WINDOW = 2_000
PROGRESS_EVERY_S = 10.0


def import_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise BackendUnavailable("--executor ray needs Ray Data: pip install 'judgelab[ray]'") from None
    return ray


class RayExecutor:
    name = "ray"

    def __init__(
        self, spec: WorkerSpec, *, address: str | None = None, retry_failures: bool = False, window: int | None = None
    ) -> None:
        self.spec, self.address, self.retry_failures = spec, address, retry_failures
        self.window = window or WINDOW
        self.started_here = False
        self.max_cost = spec.config.max_cost

    def begin(self, sink: Sink, out: Path | None) -> None:
        return None

    def finish(self) -> None:
        return None

    def close(self) -> None:
        """Stop the local Ray this run started (a Ray the caller started is left running)."""
        if self.started_here:
            import_ray().shutdown()
            self.started_here = False

    def _connect(self) -> Any:
        import logging

        ray = import_ray()
        for name in ("ray", "ray.data"):  # its own progress and plan lines: the run prints its progress
            logging.getLogger(name).setLevel(logging.ERROR)
        if not ray.is_initialized():
            address = self.address or os.environ.get("RAY_ADDRESS") or None
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
            self.started_here = True
            ray.data.DataContext.get_current().enable_progress_bars = False
        return ray

    async def run(self, rows: Sequence[Row], sink: Sink) -> None:
        """Blocks the run's loop while the rows are out: nothing else of the run moves until they are back."""
        ray = self._connect()
        by_id = {row.custom_id: row for row in rows}
        dataset = ray.data.from_items([{"row": row.to_json()} for row in rows])
        replies = dataset.map_batches(
            JudgeWorker,
            fn_constructor_kwargs={"spec": self.spec},
            compute=ray.data.ActorPoolStrategy(size=self.spec.workers),
            batch_size=ROWS_PER_BATCH,
            batch_format="numpy",
        )
        started = last = time.monotonic()
        done = 0
        for reply in replies.iter_rows():
            row = by_id[str(reply["custom_id"])]
            kind = str(reply["kind"])
            if kind == UNUSABLE:
                raise EndpointUnusable(str(reply["message"]))
            if kind:
                sink.failure(row.custom_id, FailureKind(kind), str(reply["message"]))
            else:
                sink.reply(row, Completion(**{**json.loads(str(reply["reply"])), "cached": False}))
            done += 1
            if self.max_cost is not None and sink.cost >= self.max_cost:
                print(f"ray: --max-cost {self.max_cost:g} USD reached; the rest is not called", file=sys.stderr)
                return
            if time.monotonic() - last >= PROGRESS_EVERY_S:
                last = time.monotonic()
                print(
                    f"ray: {done:,}/{len(rows):,} calls, {sink.failures:,} failed, {last - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        print(
            f"ray: {done:,}/{len(rows):,} calls, {sink.failures:,} failed, {time.monotonic() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
