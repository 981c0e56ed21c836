"""What a metric is (name, family, inputs, lazy target) and what it returns (a score or a null, and its record)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping

from judges.types import Verdict, VerdictState


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

    def load(self) -> Callable[..., Awaitable[Scored]]:
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "needs": list(self.needs), "description": self.description,
                "uses_judge": self.uses_judge, "uses_embeddings": self.uses_embeddings,
                "higher_is_better": self.higher_is_better, **({"options": dict(self.options)} if self.options else {})}


@dataclass
class MetricResult:
    """One metric on one sample: the verdict (score, null with reason, or failure with kind), the intermediate
    record, and the judge calls behind it (template, prompt hash, raw reply)."""

    metric: str
    verdict: Verdict
    details: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    applicable: bool = True

    @classmethod
    def not_applicable(cls, metric: str, missing: list[str]) -> MetricResult:
        reason = f"not applicable: the sample has no {', '.join(missing)}"
        return cls(metric, Verdict.null(reason), applicable=False)

    @property
    def value(self) -> float | None:
        return self.verdict.grade if self.verdict.state is VerdictState.GRADE else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict.to_dict(), "applicable": self.applicable}
        if self.verdict.state is VerdictState.GRADE:
            out["score"] = self.verdict.grade
        if self.details:
            out["details"] = self.details
        if self.calls:
            out["calls"] = self.calls
        return out
