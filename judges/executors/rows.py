"""Pending calls as rows `{custom_id, model, messages, params}`, where custom_id is the reply cache key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judges.calls.backend import Completion, CompletionRequest


@dataclass(frozen=True)
class Row:
    """One call an executor makes; `custom_id` is `request.cache_key()`, so its reply lands on the cache key the
    run looks up (the same shape as an OpenAI batch line's custom_id)."""

    custom_id: str
    model: str
    messages: tuple[dict[str, Any], ...]
    params: dict[str, Any]
    draw: int = 0

    @classmethod
    def of(cls, request: CompletionRequest) -> Row:
        return cls(request.cache_key(), request.model, request.messages, dict(request.params), request.draw)

    def request(self) -> CompletionRequest:
        """The request this row stands for (its cache key is the row's custom_id)."""
        return CompletionRequest(self.model, self.messages, self.params, draw=self.draw)

    def to_json(self) -> str:
        return json.dumps(
            {
                "custom_id": self.custom_id,
                "model": self.model,
                "messages": list(self.messages),
                "params": self.params,
                "draw": self.draw,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> Row:
        fields = json.loads(text)
        fields["messages"] = tuple(fields["messages"])
        return cls(**fields)


class Deferred(Exception):
    """Raised in place of a reply while a run's pending calls are collected: the item is left unjudged."""


class CollectingBackend:
    """The backend of the collecting pass: records each call it is asked for as a Row and answers nothing."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}

    async def complete(self, request: CompletionRequest) -> Completion:
        row = Row.of(request)
        self.rows.setdefault(row.custom_id, row)
        raise Deferred(row.custom_id)
