"""The summary's figures over repeated draws: unit tests' stability, and any run's consistency with itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricStability:
    mean_grade_variance: float | None
    flip_rate: float


@dataclass(frozen=True)
class Stability:
    """Over repeated draws of the same tests: per metric, the mean grade variance and the pass/fail flip rate."""

    tests: int
    draws: int
    metrics: dict[str, MetricStability]


@dataclass(frozen=True)
class MetricConsistency:
    """One metric over K draws: `items` with at least two verdicts that did not fail, the share of them whose
    verdict (a grade, or a null) changes between draws, and Krippendorff's alpha of the draws as coders over the
    grades (ordinal on a few levels, interval on more; None when it is undefined: too few grades, or one value)."""

    items: int
    changed: float | None
    self_alpha: float | None


@dataclass(frozen=True)
class Consistency:
    """A run's agreement with itself over `draws` draws of each item, per metric."""

    draws: int
    metrics: dict[str, MetricConsistency]

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Consistency | None:
        if not data:
            return None
        return cls(int(data["draws"]), {m: MetricConsistency(**v) for m, v in data["metrics"].items()})
