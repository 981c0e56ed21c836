"""A cap on the calls sent over runs (tune's `--budget-calls`; none at all: `replay_only`), checked before each call."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from judges.errors import BudgetExhausted


@dataclass
class CallAllowance:
    """Calls that may still be sent, over every run made in a context (tune's `--budget-calls`): a call answered by
    the cache is free, a retry of a call is the same call; only a runtime that reaches a model counts (`metered`:
    the judge's own, not the reference judges' scripted ones nor an executor's collecting pass)."""

    limit: int
    left: int


# the allowance of calls made in this context (`call_allowance`), checked before each call is sent; none: no cap
ALLOWANCE: ContextVar[CallAllowance | None] = ContextVar("judgelab_call_allowance", default=None)
# set by `replay_only`: every runtime in this context answers from its cache alone, whatever its cache mode
REPLAY_ONLY: ContextVar[bool] = ContextVar("judgelab_replay_only", default=False)


@contextlib.contextmanager
def call_allowance(limit: int | None) -> Iterator[CallAllowance | None]:
    """At most `limit` calls sent by the runs made inside (None: no cap); the call that would pass it is not sent,
    and its run stops at the budget instead (`BudgetExhausted`)."""
    allowance = None if limit is None else CallAllowance(limit, limit)
    token = ALLOWANCE.set(allowance)
    try:
        yield allowance
    finally:
        ALLOWANCE.reset(token)


def spend_call() -> None:
    """Take one call from this context's allowance, if it has one; BudgetExhausted when none is left."""
    allowance = ALLOWANCE.get()
    if allowance is not None:
        if allowance.left <= 0:
            raise BudgetExhausted(f"--budget-calls {allowance.limit} reached: the next call would pass it")
        allowance.left -= 1


@contextlib.contextmanager
def replay_only() -> Iterator[None]:
    """No call made in this context (or in the tasks it starts) is sent: each is answered from the cache or raises
    ReplayMiss, whatever cache mode its run was given and whether metered or not (`tune --dry-run`'s rehearsal)."""
    token = REPLAY_ONLY.set(True)
    try:
        yield
    finally:
        REPLAY_ONLY.reset(token)


def replaying_only() -> bool:
    """Whether this context sends no call (`replay_only`)."""
    return REPLAY_ONLY.get()
