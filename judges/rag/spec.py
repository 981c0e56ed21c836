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
    confidence: float | None = None  # the judge's, in [0, 1], where it gives one (logprobs)

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
    first_calls: int = 1  # the calls it makes on every sample it applies to before any reply is read (pairwise: 2)

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


_R = "judges.rag."
# the sample fields a metric needs, by their short names
Q, A, C, G = "input", "actual_output", "references", "expected_output"
IDS = ("retrieved_ids", "expected_ids")


def metric_spec(
    name: str, family: str, needs: tuple[str, ...], target: str, description: str, **kw: object
) -> MetricSpec:
    return MetricSpec(name, family, needs, _R + target, description, **kw)  # type: ignore[arg-type]


def aspect_spec(name: str, definition: str) -> MetricSpec:
    return metric_spec(
        f"ragas_aspect_{name}",
        "ragas",
        (Q, A),
        "critiques:aspect_critique",
        f"aspect critique, yes = 1: {definition}",
        options={"aspect": name, "definition": definition},
    )


def criterion_spec(name: str, definition: str) -> MetricSpec:
    return metric_spec(
        f"rubric_{name}",
        "rubric",
        (Q, A),
        "critiques:rubric",
        f"G-Eval rubric 1-5 as 0-1: {definition}",
        options={"criterion": name, "definition": definition},
    )
