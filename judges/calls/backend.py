"""The backend protocol every judge model is reached through, and its request / reply types."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from judges.calls.content_views import key_material
from judges.types import FailureKind


@dataclass(frozen=True)
class CompletionRequest:
    """One chat call: the model id, the messages and every parameter that affects the reply."""

    model: str
    messages: tuple[dict[str, Any], ...]  # content: a text, or text and image_url parts
    params: dict[str, Any] = field(default_factory=dict)
    metric: str | None = None  # for logs and scripted doubles; not part of the cache key
    draw: int = 0  # the k-th repeat of the same call (stability runs); part of the key when above 0

    def cache_key(self, endpoint: str = "") -> str:
        """A hash of what makes the reply; an image part counts by its data URL's hash, never its bytes. `endpoint`
        (`cache_endpoint`: the API bases without credentials) is part of it when given: two servers of one model
        name do not share replies; the provider's own endpoint ("") keys as every cache written before did."""

        messages = key_material(self.messages)
        content: dict[str, Any] = {"model": self.model, "messages": messages, "params": self.params}
        if self.draw:
            content["draw"] = self.draw
        if endpoint:
            content["endpoint"] = endpoint
        payload = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass
class Completion:
    """A model's reply with its accounting."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    model_version: str | None = None
    served_model: str | None = None  # the model name the endpoint says answered
    system_fingerprint: str | None = None  # the endpoint's `system_fingerprint`, when it gives one
    finish_reason: str | None = None
    top_logprobs: list[dict[str, float]] | None = None
    cached: bool = False
    latency_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "cached"}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data and k != "cached"}
        return cls(**known, cached=True)


class CallError(Exception):
    """A call that produced no reply; `retryable` errors (429, 5xx, connection, timeout) are tried again.

    `endpoint_problem` marks errors that say the endpoint itself cannot serve: "auth" (401/403), "not_found"
    (unknown model or path), "connection" (refused, DNS); the runtime stops the run on them.
    """

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        endpoint_problem: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.retryable, self.retry_after = kind, retryable, retry_after
        self.endpoint_problem = endpoint_problem


@runtime_checkable
class Backend(Protocol):
    """Anything that turns a CompletionRequest into a Completion, or raises CallError."""

    async def complete(self, request: CompletionRequest) -> Completion: ...
