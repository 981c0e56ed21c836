"""ScriptedBackend: a test double that answers from a script instead of a model."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from judges.calls.backend import Completion, CompletionRequest
from judges.calls.content_views import content_text

Reply = str | Exception
Script = Callable[[CompletionRequest], Reply]


class ScriptedBackend:
    """Replies with `script(request)` (a function) or the next item of a list; exceptions are raised.

    Every request is kept in `requests`, so tests can check what was sent; `model_version` is the fingerprint its
    completions report, as a provider's would.
    """

    def __init__(
        self, script: Script | Iterable[Reply], *, cost_per_call: float = 0.0, model_version: str | None = None
    ) -> None:
        self.cost_per_call, self.model_version = cost_per_call, model_version
        self._script = script if callable(script) else iter(list(script)).__next__
        self._callable = callable(script)
        self.requests: list[CompletionRequest] = []

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        reply = self._script(request) if self._callable else self._script()  # type: ignore[call-arg]
        if isinstance(reply, Exception):
            raise reply
        prompt_words = sum(len(content_text(m["content"]).split()) for m in request.messages)
        return Completion(
            text=reply,
            prompt_tokens=prompt_words,
            completion_tokens=len(reply.split()),
            cost=self.cost_per_call,
            model_version=self.model_version,
            system_fingerprint=self.model_version,
        )


def by_metric(replies: dict[str, Reply | list[Reply]]) -> Script:
    """A script that answers by the request's metric; a list is consumed one reply per call."""
    queues = {metric: iter(r) if isinstance(r, list) else None for metric, r in replies.items()}

    def script(request: CompletionRequest) -> Reply:
        if request.metric not in replies:
            return KeyError(f"the script has no reply for metric {request.metric!r}")
        queue = queues[request.metric]
        return next(queue) if queue is not None else replies[request.metric]  # type: ignore[return-value]

    return script
