"""95% intervals for a run's figures: Wilson for a pass rate, seeded bootstraps for the total and for a mean grade;
each interval lies inside the range of the figure it bounds."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

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


def mean_interval(values: Sequence[float], value_range: tuple[float, float]) -> tuple[float | None, float | None]:
    """The percentile bootstrap interval of a mean grade (seeded; None, None below two values). Unlike a t
    interval, it cannot leave the metric's `value_range` (a mean of values in the range is in the range)."""
    if len(values) < 2:
        return None, None
    import numpy as np

    low_end, high_end = value_range
    data = np.clip(np.asarray(values, dtype=float), low_end, high_end)
    if float(data.min()) == float(data.max()):
        return float(data[0]), float(data[0])
    low, high = percentile_bootstrap(data)
    return max(low_end, low), min(high_end, high)


def percentile_bootstrap(data: Any) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of `data` (a float array): the very figures of
    `scipy.stats.bootstrap(..., method="percentile", n_resamples=RESAMPLES, rng=default_rng(SEED))` (a test pins
    them), the same resampling and linear quantile written with numpy, since importing scipy.stats would cost a
    cached re-run most of its time."""
    import numpy as np

    index = np.random.default_rng(SEED).integers(0, len(data), size=(RESAMPLES, len(data)))
    means = np.sort(data[index].mean(axis=-1))
    alpha = (1 - 0.95) / 2
    share = np.array([alpha, 1 - alpha])
    position = share * RESAMPLES + (1 - share)  # Hyndman and Fan's type 7 ("linear"), 1-based
    below, weight = (position // 1 - 1).astype(np.int64), position % 1
    low, high = (1 - weight) * means[below] + weight * means[below + 1]
    return float(low), float(high)


def first_draw_grades(records: Iterable[ItemRecord]) -> dict[str, list[float]]:
    """Each metric's grades over the first draw, as floats (the records streamed, not held)."""
    out: dict[str, list[float]] = {}
    for record in records:
        if record.draw == 0:
            for metric, entry in record.metrics.items():
                if entry.value is not None:
                    out.setdefault(metric, []).append(entry.value)
    return out


def metric_range(metric: str, info: dict[str, Any]) -> tuple[float, float]:
    """A metric's range: as its spec declared it (metrics runs record it), else the GroUSE grades it takes."""
    declared = info.get("range")
    if isinstance(declared, list) and len(declared) == 2:
        return float(declared[0]), float(declared[1])
    from judges.suite.conditions import metric_grades

    try:
        grades = metric_grades(metric)
    except (KeyError, ValueError):
        return 0.0, 1.0
    return float(grades[0]), float(grades[-1])
