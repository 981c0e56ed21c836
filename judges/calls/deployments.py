"""Several deployments of one judge (repeated --api-base): calls spread by load, a failing one routed around."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from judges.calls.backend import Backend, CallError, Completion, CompletionRequest


@dataclass
class Deployment:
    """One server of the judge, with its own limit on calls in flight and the time it may be tried again."""

    name: str
    backend: Backend
    slots: asyncio.Semaphore
    in_flight: int = 0
    down_until: float = 0.0
    answered: int = field(default=0)


class DeploymentRouter:
    """Sends each call to the least busy deployment that is up. A deployment that refuses connections is skipped
    at once for the rest of the call (the next one is tried); one that fails with a retryable error (429, 5xx,
    timeout) is set aside for `cooldown_s`, or for as long as its Retry-After asks (a hint then kept from the runtime
    while another deployment is up), so the runtime's retry lands elsewhere. Retries, limits and the budget stay in
    the runtime."""

    def __init__(self, backends: list[tuple[str, Backend]], per_deployment: int, cooldown_s: float = 5.0) -> None:
        if not backends:
            raise ValueError("at least one deployment")
        self._specs = backends
        self.per_deployment, self.cooldown_s = per_deployment, cooldown_s
        self._deployments: list[Deployment] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def deployments(self) -> list[Deployment]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # semaphores belong to one event loop: made anew for each run
            self._deployments = [
                Deployment(name, backend, asyncio.Semaphore(self.per_deployment)) for name, backend in self._specs
            ]
            self._loop = loop
        return self._deployments

    def _pick(self, skip: set[str]) -> Deployment | None:
        now = time.monotonic()
        candidates = [d for d in self.deployments if d.name not in skip]
        if not candidates:
            return None
        up = [d for d in candidates if d.down_until <= now] or candidates
        return min(up, key=lambda d: (d.in_flight >= self.per_deployment, d.in_flight, d.down_until))

    async def complete(self, request: CompletionRequest) -> Completion:
        refused: set[str] = set()
        while True:
            deployment = self._pick(refused)
            if deployment is None:
                raise AssertionError("unreachable: the last refusal is raised")  # pragma: no cover
            deployment.in_flight += 1
            try:
                async with deployment.slots:
                    completion = await deployment.backend.complete(request)
                deployment.answered += 1
                return completion
            except CallError as err:
                if err.retryable or err.endpoint_problem == "connection":
                    deployment.down_until = time.monotonic() + max(self.cooldown_s, err.retry_after or 0.0)
                if err.retry_after is not None and any(d.down_until <= time.monotonic() for d in self.deployments):
                    err.retry_after = None  # another deployment takes the retry; this one waits as long as it asked
                refused.add(deployment.name)
                others_left = len(refused) < len(self._specs)
                if err.endpoint_problem == "connection" and others_left:
                    continue  # nothing reached that server: this call goes to the next one now
                raise
            finally:
                deployment.in_flight -= 1

    async def aclose(self) -> None:
        for _, backend in self._specs:
            closer = getattr(backend, "aclose", None)
            if closer is not None:
                await closer()

    def close(self) -> None:
        for _, backend in self._specs:
            closer = getattr(backend, "close", None)
            if closer is not None:
                closer()
