"""The 95% interval of a unit-test run's total (the mean of the six pass rates): a seeded bootstrap over the tests
that completed."""

from __future__ import annotations

from collections.abc import Iterable

from judges.records import ItemRecord
from judges.runs.intervals import tails
from judges.stats.resampling import RESAMPLES, SEED
from judges.types import ALL_METRICS, Outcome


def total_interval(rows: Iterable[ItemRecord]) -> tuple[float | None, float | None]:
    """Bootstrap over completed tests of the mean of the six pass rates (one index matrix, seeded); the tests are
    taken in item order whatever order they come in, keeping six flags per test, not the records."""
    import numpy as np  # defers numpy

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
    return tails(totals.tolist())
