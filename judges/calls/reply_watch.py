"""A check every fresh reply of this context goes through (`watching`): a run stops at the first reply it refuses
(e.g. `evaluate --cascade` on a reply from another model or fingerprint than the calibrated judge's)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from judges.calls.backend import Completion

Watch = Callable[[Completion], None]
WATCH: ContextVar[Watch | None] = ContextVar("judgelab_reply_watch", default=None)


@contextlib.contextmanager
def watching(watch: Watch) -> Iterator[None]:
    """Every reply an endpoint gives in this context (not a cached one) goes through `watch`, which raises a
    JudgelabError to stop the run (the reply itself is kept in the cache first)."""
    token = WATCH.set(watch)
    try:
        yield
    finally:
        WATCH.reset(token)


def check_reply(completion: Completion) -> None:
    """The reply through the watch of this context, if any."""
    watch = WATCH.get()
    if watch is not None:
        watch(completion)
