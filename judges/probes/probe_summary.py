"""The typed part of a probe run's summary: per probe and metric, the rate with its interval and the pairs missed."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LISTED = 200  # pairs missed kept per probe and metric, the first to finish (results.jsonl holds every pair)

PROBES = "probes"  # the kind's name, as run.json gives it (and the key of its summary part)


@dataclass(frozen=True)
class ProbeMiss:
    """A pair whose grade did not do what the probe declares: both items' ids and grades as shown."""

    original: str
    perturbed: str
    before: str
    after: str


@dataclass(frozen=True)
class ProbeRow:
    """One probe x metric: held of n pairs (rate, Wilson interval), failures apart, the baselines, and the first
    LISTED of the n - held pairs missed."""

    probe: str
    metric: str
    expects: str
    measures: str
    held: int
    n: int
    rate: float | None
    low: float | None
    high: float | None
    failed: int
    pairs: int
    oracle: float
    constant: float
    missed: list[ProbeMiss] = field(default_factory=list)

    @property
    def misses(self) -> int:
        """How many pairs missed (those listed in `missed` are the first LISTED of them)."""
        return self.n - self.held


@dataclass(frozen=True)
class ProbeSummary:
    rows: list[ProbeRow] = field(default_factory=list)
    originals: int = 0

    @property
    def kind(self) -> str:
        """The run kind this part belongs to: the key it is written under in run.json's summary."""
        return PROBES

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProbeSummary:
        rows = [
            ProbeRow(**{**row, "missed": [ProbeMiss(**m) for m in row.get("missed", [])]})
            for row in data.get("rows", [])
        ]
        return cls(rows, int(data.get("originals", 0)))
