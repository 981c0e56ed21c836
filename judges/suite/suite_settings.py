"""A unit-test run's own keys of run.json's config, typed: how many tests, and the baselines' pass rates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SuiteSettings:
    """A unit-test run's own config keys: how many tests, and the baselines' pass rates on them."""

    n_tests: int | None = None
    baselines: Mapping[str, Mapping[str, float | None]] | None = None

    @classmethod
    def of(cls, details: Mapping[str, Any]) -> SuiteSettings:
        """The settings from run.json's config (a key the run did not record reads as None)."""
        n_tests, baselines = details.get("n_tests"), details.get("baselines")
        return cls(n_tests if isinstance(n_tests, int) else None, baselines if isinstance(baselines, Mapping) else None)
