"""The mean grade's bootstrap: the same distribution as scipy's percentile bootstrap (drawing indices), whether
the grades take few values (resampled as counts of each) or many (resampled by index in blocks)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from judges.runs.intervals import BLOCK_VALUES, DISTINCT_BY_COUNTS, bootstrap_means, mean_interval


@pytest.mark.parametrize(
    "data",
    [
        np.random.default_rng(1).choice([1.0, 2.0, 3.0, 4.0, 5.0], size=300, p=[0.1, 0.1, 0.2, 0.3, 0.3]),
        np.random.default_rng(2).random(DISTINCT_BY_COUNTS * 2),  # many distinct values: by index
        np.random.default_rng(3).choice([0.0, 1.0], size=40),
    ],
)
def test_the_interval_agrees_with_scipys_percentile_bootstrap(data):
    low, high = mean_interval(list(data), (0.0, 5.0))
    scipy_ci = bootstrap(
        (data,), np.mean, method="percentile", n_resamples=20_000, random_state=np.random.default_rng(0)
    ).confidence_interval
    spread = scipy_ci.high - scipy_ci.low
    assert abs(low - scipy_ci.low) < 0.1 * spread and abs(high - scipy_ci.high) < 0.1 * spread


def test_resampled_means_have_the_bootstrap_mean_and_spread_in_bounded_blocks():
    data = np.random.default_rng(4).random(BLOCK_VALUES // 10 + 7)  # blocks of 10 resamples, the last one short
    means = bootstrap_means(data, np.random.default_rng(0), resamples=23)
    assert means.shape == (23,)
    standard_error = data.std() / np.sqrt(len(data))
    assert abs(means.mean() - data.mean()) < 3 * standard_error
    few = bootstrap_means(np.array([1.0, 1.0, 5.0, 5.0]), np.random.default_rng(0), resamples=5000)
    assert set(np.round(few * 4)) <= {4.0, 8.0, 12.0, 16.0, 20.0} and abs(few.mean() - 3.0) < 0.05
