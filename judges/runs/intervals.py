"""95% intervals for a run's figures: Wilson for a pass rate, a seeded bootstrap for the total, t for a mean."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence

from judges.records import ItemRecord
from judges.types import ALL_METRICS, Outcome

RESAMPLES, SEED = 1000, 0


def wilson(passed: int, n: int) -> tuple[float | None, float | None]:
    """The Wilson score interval of `passed` out of `n` (None, None when nothing completed)."""
    if n == 0:
        return None, None
    # The closed form (Wilson 1927), with the normal quantile from the standard library: scipy's binomtest gives
    # the same interval but importing scipy.stats costs a cached re-run more than a second.
    z = statistics.NormalDist().inv_cdf(0.975)
    share, z2n = passed / n, z * z / n
    centre = (share + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * (share * (1 - share) / n + z2n / (4 * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def total_interval(rows: Iterable[ItemRecord]) -> tuple[float | None, float | None]:
    """Bootstrap over completed tests of the mean of the six pass rates (one index matrix, seeded); the tests are
    taken in item order whatever order they come in, keeping six flags per test, not the records."""
    import numpy as np

    completed = sorted(
        (row.order, tuple(row.metrics[m].outcome is Outcome.PASS for m in ALL_METRICS))
        for row in rows
        if all(row.metrics[m].outcome is not Outcome.FAILURE for m in ALL_METRICS)
    )
    if not completed:
        return None, None
    passes = np.array([flags for _, flags in completed], dtype=float)
    index = np.random.default_rng(SEED).integers(0, len(completed), size=(RESAMPLES, len(completed)))
    totals = passes[index].mean(axis=(1, 2))
    low, high = np.percentile(totals, [2.5, 97.5])
    return float(low), float(high)


def mean_interval(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Student's t interval of a mean grade (None, None below two values)."""
    if len(values) < 2:
        return None, None
    return t_interval(statistics.fmean(values), statistics.stdev(values), len(values))


def t_interval(mean: float | None, stdev: float | None, n: int) -> tuple[float | None, float | None]:
    """Student's t interval of a mean from its sample standard deviation and count (a summary's figures)."""
    if mean is None or stdev is None or n < 2:
        return None, None
    from scipy.stats import t

    sem = stdev / n**0.5
    if sem == 0:
        return mean, mean
    low, high = t.interval(0.95, n - 1, loc=mean, scale=sem)
    return float(low), float(high)
