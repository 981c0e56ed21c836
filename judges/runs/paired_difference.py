"""A paired bootstrap of the difference between two candidates' per-item values on the same items (scipy)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

RESAMPLES, SEED, CONFIDENCE = 2000, 0, 0.95


@dataclass(frozen=True)
class Difference:
    """a - b over the shared items (the mean of per-item differences, or of a statistic such as balanced accuracy
    when `of` names it) with its percentile bootstrap interval."""

    n: int
    mean: float
    low: float
    high: float
    of: str = ""

    def describe(self) -> str:
        return (
            f"paired bootstrap{f' of {self.of}' if self.of else ''} on the same {self.n} items: difference "
            f"{self.mean:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"
        )


def paired_difference(a: Mapping[str, float] | None, b: Mapping[str, float] | None) -> Difference | None:
    """The bootstrap of a - b item by item; None unless both give values for exactly the same (>= 2) items."""
    if not a or not b or set(a) != set(b) or len(a) < 2:
        return None
    keys = sorted(a)
    diff = np.array([a[k] - b[k] for k in keys], dtype=float)
    mean = float(diff.mean())
    if np.all(diff == diff[0]):  # no variation: every resample gives the same mean
        return Difference(len(keys), mean, mean, mean)
    from scipy.stats import bootstrap

    result = bootstrap(
        (diff,),
        np.mean,
        n_resamples=RESAMPLES,
        confidence_level=CONFIDENCE,
        method="percentile",
        random_state=np.random.default_rng(SEED),
    )
    interval = result.confidence_interval
    return Difference(len(keys), mean, float(interval.low), float(interval.high))
