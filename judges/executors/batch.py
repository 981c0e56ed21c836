"""`--executor batch`: a run's pending calls as provider batches (submit, record, poll, import as they land)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.calls.backend import CallError
from judges.calls.content_views import estimate_tokens
from judges.calls.openai_http import http_error, to_completion
from judges.errors import BudgetExhausted, EndpointUnusable
from judges.executors.batch_api import BatchAPI
from judges.executors.batch_files import ENDPOINT, MAX_BYTES, MAX_LINES, chunks, write_chunk
from judges.executors.batch_prices import batch_cost
from judges.executors.ledger import Entry, Ledger, write_atomic
from judges.executors.rows import Row
from judges.executors.settle import Sink
from judges.types import FailureKind

POLL_FIRST_S, POLL_MAX_S = 2.0, 60.0
# items settled at once: a window's first round fills at most a few files (50,000 lines each), each round of
# dependent steps is one wait on the provider, and what the driver holds stays bounded
WINDOW = 50_000


class BatchExecutor:
    """Rows go out as batch input files (one model each, within the provider's limits); every batch id is in the
    ledger before it is polled; results come back into the cache by custom_id; a failed line is a failure."""

    name = "batch"

    def __init__(
        self,
        api: BatchAPI,
        body_of: Any,
        cache_path: Path,
        *,
        max_cost: float | None = None,
        retry_failures: bool = False,
        max_lines: int = MAX_LINES,
        max_bytes: int = MAX_BYTES,
        where: str = "the provider",
        window: int | None = None,
    ) -> None:
        self.where, self.window = where, window or WINDOW
        self.api, self.body_of = api, body_of
        self.ledger = Ledger(cache_path)
        self.max_cost, self.retry_failures = max_cost, retry_failures
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self.poll_first_s = float(os.environ.get("JUDGELAB_BATCH_POLL_S", POLL_FIRST_S))
        self.used: list[Entry] = []  # this run's batches (new or resumed)
        self.out: Path | None = None
        self.created = 0

    def begin(self, sink: Sink, out: Path | None) -> None:
        self.out = out
        for entry in self.ledger.entries:  # replies a stopped run already imported count as this run's calls
            sink.fresh.update(self.ledger.ids(entry))

    def close(self) -> None:
        return None

    def finish(self) -> None:
        self._copy()
        self.ledger.drop([e for e in self.ledger.entries if e.imported or (e in self.used and e.done)])

    def _save(self) -> None:
        self.ledger.save()
        self._copy()

    def _copy(self) -> None:
        """This run's batches, in its run folder."""
        if self.out is not None and self.used:
            write_atomic(self.out / "batches.json", json.dumps(self.ledger.as_json(self.used), indent=1))

    async def run(self, rows: Sequence[Row], sink: Sink) -> None:
        wanted = {row.custom_id: row for row in rows}
        covering = self._covering(wanted)
        covered = {i for entry in covering for i in self.ledger.ids(entry)}
        fresh = [row for row in rows if row.custom_id not in covered]
        try:
            self._check_budget(fresh, sink)
            for chunk in chunks(fresh, self.body_of, self.max_lines, self.max_bytes):
                covering.append(await self._submit(chunk))
            await self._poll(covering, wanted, sink)
        except CallError as err:
            raise EndpointUnusable(f"the batch API of {self.where} is unusable: {err}") from None
        finally:
            await self.api.aclose()
        for key in wanted.keys() - sink.failed.keys():
            if sink.cache.get(wanted[key].request()) is None:
                sink.failure(key, FailureKind.API_ERROR, "batch: no result for this request in the batch output")

    def _covering(self, wanted: dict[str, Row]) -> list[Entry]:
        """Batches in the ledger (from this run or a stopped one) that hold any of the wanted rows."""
        unsent = [e for e in self.ledger.entries if e.file_id is None]  # stopped before its upload: sent anew
        if unsent:
            self.ledger.drop(unsent)
        found = [e for e in self.ledger.entries if not e.imported and wanted.keys() & set(self.ledger.ids(e))]
        if found:
            print(f"batch: resuming {len(found)} batch(es) already submitted", file=sys.stderr, flush=True)
        self.used.extend(e for e in found if e not in self.used)
        return found

    def _check_budget(self, rows: Sequence[Row], sink: Sink) -> None:
        if self.max_cost is None or not rows:
            return
        estimate = sum(
            batch_cost(
                row.model,
                estimate_tokens(row.request()) - int(row.params.get("max_tokens") or 0),
                int(row.params.get("max_tokens") or 0),
            )
            for row in rows
        )
        if sink.cost + estimate > self.max_cost:
            raise BudgetExhausted(
                f"--max-cost {self.max_cost:g} USD: the {len(rows):,} calls to submit may cost up to "
                f"{estimate:.4f} USD at batch prices (spent {sink.cost:.4f}); nothing was submitted"
            )

    async def _submit(self, chunk: Any) -> Entry:
        name = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        entry = Entry(name, chunk.model, len(chunk.rows), f"{name}.ids")
        self.ledger.add(entry, [row.custom_id for row in chunk.rows])  # before any upload: a resume finds them
        self.used.append(entry)
        path = write_chunk(chunk, self.ledger.folder / f"{name}.jsonl")
        try:
            entry.file_id = await self.api.upload(path)
        finally:
            path.unlink(missing_ok=True)
        entry.status = "uploaded"
        self.ledger.save()
        await self._create(entry)
        return entry

    async def _create(self, entry: Entry) -> None:
        made = await self.api.create(str(entry.file_id), ENDPOINT)
        entry.batch_id, entry.status = str(made["id"]), str(made.get("status") or "validating")
        self.created += 1
        self._save()  # before polling
        print(f"batch: submitted {entry.batch_id} ({entry.rows:,} calls of {entry.model})", file=sys.stderr, flush=True)

    async def _poll(self, entries: list[Entry], wanted: dict[str, Row], sink: Sink) -> None:
        started, wait = time.monotonic(), self.poll_first_s
        for entry in entries:
            if entry.batch_id is None:  # uploaded, then stopped before the batch was recorded
                made = await self.api.find(str(entry.file_id)) if entry.file_id else None
                if made is not None:
                    entry.batch_id, entry.status = str(made["id"]), str(made.get("status"))
                    self.ledger.save()
                elif entry.file_id:
                    await self._create(entry)
        while True:
            for entry in entries:
                if entry.imported or entry.batch_id is None:
                    continue
                try:
                    batch = await self.api.retrieve(entry.batch_id)
                except CallError as err:
                    if not err.retryable:
                        raise
                    print(f"batch: polling {entry.batch_id} failed ({err}); polling again", file=sys.stderr)
                    continue
                entry.status = str(batch.get("status"))
                entry.counts = {k: int(v or 0) for k, v in (batch.get("request_counts") or {}).items()}
                if entry.done:
                    await self._import(entry, batch, wanted, sink)
                    self._save()
            self._progress(entries, time.monotonic() - started)
            if all(e.imported or e.batch_id is None for e in entries):
                return
            await asyncio.sleep(wait)
            wait = min(wait * 1.5, POLL_MAX_S)

    async def _import(self, entry: Entry, batch: dict[str, Any], wanted: dict[str, Row], sink: Sink) -> None:
        for key in ("output_file_id", "error_file_id"):
            if batch.get(key):
                for line in (await self.api.content(str(batch[key]))).splitlines():
                    if line.strip():
                        self._import_line(json.loads(line), entry.model, wanted, sink)
        if entry.status != "completed":  # failed, expired, cancelled: what has no result fails with the batch
            reason = f"batch {entry.batch_id} {entry.status}"
            for key in self.ledger.ids(entry):
                if key in wanted and key not in sink.failed and sink.cache.get(wanted[key].request()) is None:
                    sink.failure(key, FailureKind.API_ERROR, reason)
        entry.imported = True

    def _import_line(self, line: dict[str, Any], model: str, wanted: dict[str, Row], sink: Sink) -> None:
        row = wanted.get(str(line.get("custom_id")))
        if row is None:
            return
        response = line.get("response") or {}
        status = int(response.get("status_code") or 0)
        if line.get("error") or status >= 400 or not status:
            error = line.get("error") or (response.get("body") or {}).get("error") or {}
            failed = http_error(status or 500, json.dumps({"error": error}).encode())
            sink.failure(row.custom_id, failed.kind, f"batch: {failed}")
            return
        try:
            completion = to_completion(response["body"], model, 0.0)
        except CallError as err:
            sink.failure(row.custom_id, err.kind, f"batch: {err}")
            return
        completion.cost = batch_cost(model, completion.prompt_tokens, completion.completion_tokens)
        sink.reply(row, completion)

    def _progress(self, entries: list[Entry], elapsed: float) -> None:
        total = sum(e.rows for e in entries)
        done = sum(e.counts.get("completed", 0) for e in entries)
        failed = sum(e.counts.get("failed", 0) for e in entries)
        waiting = sum(not e.imported for e in entries)
        print(
            f"batch: {done:,}/{total:,} completed, {failed:,} failed, {waiting} of {len(entries)} batch(es) "
            f"waiting, {elapsed:.0f} s",
            file=sys.stderr,
            flush=True,
        )
