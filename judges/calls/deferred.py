"""A backend made on the first call that reaches it: a fully cached run starts no server and imports no client."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from judges.calls.backend import Backend, Completion, CompletionRequest


class DeferredBackend:
    """Calls `open_backend()` (in a worker thread: it may start a server) once, on the first call, then forwards
    every call to what it returned."""

    def __init__(self, open_backend: Callable[[], Backend]) -> None:
        self._open = open_backend
        self._backend: Backend | None = None
        self._opening: asyncio.Future[Backend] | None = None

    @property
    def opened(self) -> bool:
        return self._backend is not None

    async def complete(self, request: CompletionRequest) -> Completion:
        if self._backend is None:
            if self._opening is None or self._opening.get_loop() is not asyncio.get_running_loop():
                self._opening = asyncio.ensure_future(asyncio.to_thread(self._open))
            # shielded: a call that times out while the server starts does not cancel the start
            self._backend = await asyncio.shield(self._opening)
        return await self._backend.complete(request)

    async def aclose(self) -> None:
        closer = getattr(self._backend, "aclose", None)
        if closer is not None:
            await closer()

    def close(self) -> None:
        closer = getattr(self._backend, "close", None)
        if closer is not None:
            closer()
