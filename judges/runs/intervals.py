"""95% intervals for a run's figures: Wilson for a pass rate, a seeded bootstrap for a mean grade (the unit tests'
total: `judges.suite.pass_interval`); each interval lies inside the range of the figure it bounds."""

from __future__ import annotations

import math
import statistics
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from judges.judging.replies import GRADE_SPECS
from judges.records import ItemRecord
from judges.stats.resampling import RESAMPLES, SEED

DISTINCT_BY_COUNTS = 256  # resampled as counts of each distinct value up to this many values
BLOCK_VALUES = 4_000_000  # values drawn at once when resampling by index (32 MB)


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
    low, high = tails(bootstrap_means(data, np.random.default_rng(SEED)).tolist())
    return max(low_end, low), min(high_end, high)


def tails(values: list[float]) -> tuple[float, float]:
    """`numpy.percentile(values, [2.5, 97.5])` to the bit: its default linear interpolation, in the same float
    operations, on the values sorted (NaN if any is NaN), without numpy.percentile, which imports numpy.ma (a tenth
    of a cached re-run's imports)."""
    if any(math.isnan(value) for value in values):
        return math.nan, math.nan
    ordered = sorted(values)
    last = len(ordered) - 1
    found = []
    for q in (2.5 / 100, 97.5 / 100):
        virtual = last * q
        below = math.floor(virtual)
        if virtual >= last:
            found.append(ordered[-1])
            continue
        a, b, gamma = ordered[below], ordered[below + 1], virtual - below
        diff = b - a
        found.append(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)
    return found[0], found[1]


def bootstrap_means(data: Any, rng: Any, resamples: int = RESAMPLES) -> Any:
    """The means of `resamples` resamples of `data` (drawn with replacement), in memory that does not grow with
    the run: grades take a few values, so a resample is how many times it draws each one (a multinomial over the
    distinct values, the same distribution as drawing indices); many distinct values are resampled by index, a
    block of resamples at a time."""
    import numpy as np

    levels, counts = np.unique(data, return_counts=True)
    n = len(data)
    if len(levels) <= DISTINCT_BY_COUNTS:
        return rng.multinomial(n, counts / n, size=resamples) @ levels / n
    block = max(1, BLOCK_VALUES // n)
    means = [
        data[rng.integers(0, n, size=(min(block, resamples - k), n))].mean(axis=1) for k in range(0, resamples, block)
    ]
    return np.concatenate(means)


def first_draw_grades(records: Iterable[ItemRecord]) -> dict[str, array[float]]:
    """Each metric's grades over the first draw, as 8-byte floats (the records streamed, not held)."""
    out: dict[str, array[float]] = {}
    for _ in noting_grades(records, out):
        pass
    return out


def noting_grades(records: Iterable[ItemRecord], into: dict[str, array[float]]) -> Iterator[ItemRecord]:
    """`records` passed on unchanged, each first-draw grade noted in `into` on the way: one pass over a run's
    records serves both its caller and the grades."""
    for record in records:
        if record.draw == 0:
            for metric, entry in record.metrics.items():
                if entry.value is not None:
                    into.setdefault(metric, array("d")).append(entry.value)
        yield record


def metric_range(metric: str, info: dict[str, Any]) -> tuple[float, float]:
    """A metric's range: as its spec declared it (metrics runs record it), else the GroUSE grades it takes."""
    declared = info.get("range")
    if isinstance(declared, list) and len(declared) == 2:
        return float(declared[0]), float(declared[1])

    try:
        grades = GRADE_SPECS[metric][1]
    except (KeyError, ValueError):
        return 0.0, 1.0
    return float(grades[0]), float(grades[-1])
