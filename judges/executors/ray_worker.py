"""A Ray Data worker: calls the judge for a batch of rows with judgelab's own client and runtime (retries,
timeouts, failure kinds, secret handling, its share of the rate limits); it writes nothing, the driver does."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.calls.backend import CallError
from judges.calls.backend_factory import open_backend
from judges.calls.endpoint_auth import endpoint_name
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.errors import EndpointUnusable, JudgelabError
from judges.executors.rows import Row

if TYPE_CHECKING:
    from judges.config.judge import JudgeConfig

UNUSABLE = "endpoint_unusable"  # a worker's reply kind that stops the run (the endpoint cannot serve it)


@dataclass(frozen=True)
class WorkerSpec:
    """What each worker needs to build the judge's client: the config (credentials stay in memory, sent to the
    workers with the task, never written) and how many workers share the rate limits."""

    config: JudgeConfig
    workers: int

    @classmethod
    def of(cls, config: JudgeConfig, workers: int) -> WorkerSpec:
        return cls(config, max(1, workers))


class JudgeWorker:
    """Made once per Ray actor: opens the backend (for a local judge, its own llama.cpp server on first call)."""

    def __init__(self, spec: WorkerSpec) -> None:
        config = spec.config
        model = config.judge_model()
        share = 1 / spec.workers
        settings = RuntimeSettings(
            concurrency=min(config.concurrency, model.max_parallel_calls or config.concurrency),
            timeout_s=config.timeout_s,
            max_attempts=config.max_attempts,
            requests_per_minute=config.rpm * share if config.rpm else None,
            tokens_per_minute=config.tpm * share if config.tpm else None,
            endpoint=endpoint_name(config.api_bases(), model.local),
            early_timeout_stops=not model.local,
        )
        self._stack = contextlib.ExitStack()
        backend = self._stack.enter_context(
            open_backend(
                model,
                timeout_s=config.timeout_s,
                connection=config.connection_extra(),
                client=config.client,
                api_bases=config.api_bases(),
                per_deployment=settings.concurrency,
            )
        )
        self.runtime = CallRuntime(backend, None, settings)
        self.loop = asyncio.new_event_loop()

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        rows = [Row.from_json(str(text)) for text in batch["row"]]
        results = self.loop.run_until_complete(self._all(rows))
        return {name: [r[i] for r in results] for i, name in enumerate(("custom_id", "reply", "kind", "message"))}

    async def _all(self, rows: list[Row]) -> list[tuple[str, str, str, str]]:
        return list(await asyncio.gather(*(self._one(row) for row in rows)))

    async def _one(self, row: Row) -> tuple[str, str, str, str]:
        try:
            completion = await self.runtime.call(row.request())
        except CallError as err:
            return row.custom_id, "", err.kind.value, str(err)
        except EndpointUnusable as err:
            return row.custom_id, "", UNUSABLE, str(err)
        except JudgelabError as err:
            return row.custom_id, "", "api_error", str(err)
        return row.custom_id, json.dumps(dataclasses.asdict(completion)), "", ""

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(self.runtime.aclose())
            self._stack.close()
