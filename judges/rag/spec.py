"""What a metric is (name, family, inputs, lazy target) and what it returns (a score or a null, and its record)."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Scored:
    """A metric function's result: a value, or None with the reason it is undefined; plus its intermediate record."""

    value: float | None
    details: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None

    @classmethod
    def null(cls, reason: str, **details: Any) -> Scored:
        return cls(None, details, reason)


@dataclass(frozen=True)
class MetricSpec:
    """A registered metric. `target` is "module:function", imported only when the metric runs."""

    name: str
    family: str
    needs: tuple[str, ...]
    target: str
    description: str
    options: Mapping[str, Any] = field(default_factory=dict)
    uses_judge: bool = True
    uses_embeddings: bool = False
    higher_is_better: bool = True
    value_range: tuple[float, float] = (0.0, 1.0)  # every value it can take lies here; intervals never leave it

    def load(self) -> Callable[..., Awaitable[Scored]]:
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "family": self.family,
            "needs": list(self.needs),
            "description": self.description,
            "uses_judge": self.uses_judge,
            "uses_embeddings": self.uses_embeddings,
            "higher_is_better": self.higher_is_better,
            "range": list(self.value_range),
            **({"options": dict(self.options)} if self.options else {}),
        }
