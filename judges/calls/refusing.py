"""The backend that refuses every call: a dry run's (a call is a bug) and a run that started no judge (a failure)."""

from __future__ import annotations

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.types import FailureKind


class RefusingBackend:
    """Refuses each call with `reason` (its `{metric}` filled from the request).

    `bug=True` raises AssertionError: the caller promised to make no call (a dry run must spend nothing), so one
    is a defect that must stop the program loudly. Otherwise a CallError (API error) makes the calling item fail
    with the reason, like any refused call.
    """

    def __init__(self, reason: str, *, bug: bool = False) -> None:
        self.reason, self.bug = reason, bug

    async def complete(self, request: CompletionRequest) -> Completion:
        message = self.reason.format(metric=request.metric)
        if self.bug:
            raise AssertionError(message)
        raise CallError(FailureKind.API_ERROR, message)


def dry_run_backend() -> RefusingBackend:
    """A dry run's backend: any call is a bug, since a dry run must spend nothing."""
    return RefusingBackend("a dry run made a call", bug=True)


def no_judge_backend() -> RefusingBackend:
    """The backend of a run whose metrics call no judge (retrieval ids, embeddings): a call fails that item."""
    return RefusingBackend("no judge was started for this run ({metric} asked for one)")
