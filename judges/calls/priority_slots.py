"""A concurrency limit whose waiters are served by priority: earlier work finishes before new work starts."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from types import TracebackType


class PrioritySlots:
    """Like asyncio.Semaphore(n), but a released slot goes to the waiter with the lowest priority number."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def hold(self, priority: int = 0) -> _Held:
        """`async with slots.hold(priority):` a slot for the block (a plain class: no generator made per call)."""
        return _Held(self, priority)

    async def _acquire(self, priority: int) -> None:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (priority, next(self._order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # the slot was handed over as we were cancelled: pass it on
            raise

    def _release(self) -> None:
        while self._waiters:
            _, _, future = heapq.heappop(self._waiters)
            if not future.done():
                future.set_result(None)
                return
        self._free += 1


class _Held:
    """A slot held for an `async with` block: taken on entry, released on exit, however the block ends."""

    __slots__ = ("_priority", "_slots")

    def __init__(self, slots: PrioritySlots, priority: int) -> None:
        self._slots, self._priority = slots, priority

    async def __aenter__(self) -> None:
        await self._slots._acquire(self._priority)

    async def __aexit__(
        self, _type: type[BaseException] | None, _error: BaseException | None, _trace: TracebackType | None
    ) -> None:
        self._slots._release()
