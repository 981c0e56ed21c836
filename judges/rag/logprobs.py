"""Probability-weighted grades from the judge's top next-token log-probabilities (G-Eval style)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WeightedGrade:
    """The expected grade under the judge's next-token distribution, restricted to tokens that are grades."""

    value: float
    distribution: dict[str, float]  # grade label -> probability, renormalized over the grade tokens
    coverage: float  # probability mass of the top tokens that are grades (how much of the judge's belief we use)
    top_tokens: dict[str, float]  # the raw top tokens and their probabilities

    @property
    def confidence(self) -> float:
        """The probability of the likeliest grade among the grade tokens (the grade greedy decoding gives)."""
        return max(self.distribution.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "distribution": self.distribution,
            "coverage": self.coverage,
            "top_tokens": self.top_tokens,
        }


def weighted_grade(top_logprobs: Mapping[str, float], grades: Mapping[str, float]) -> WeightedGrade | None:
    """Σ p(label) x grade over the top tokens that read as a grade label ("5", " Yes", "no" ...); None if none does.

    `grades` maps lower-case labels to grade values, e.g. {"yes": 1, "no": 0} or {"1": 1, ..., "5": 5}.
    """
    probabilities = {token: math.exp(logprob) for token, logprob in top_logprobs.items()}
    mass: dict[str, float] = {}
    for token, p in probabilities.items():
        label = token.strip().casefold()
        if label in grades:
            mass[label] = mass.get(label, 0.0) + p
    covered = sum(mass.values())
    if covered <= 0.0:
        return None
    distribution = {label: p / covered for label, p in sorted(mass.items(), key=lambda kv: grades[kv[0]])}
    value = sum(grades[label] * p for label, p in distribution.items())
    return WeightedGrade(value, distribution, covered, probabilities)
