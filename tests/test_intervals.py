"""The closed-form Wilson interval agrees with scipy's (and with a value computed by hand); the mean grade's
bootstrap has the distribution of scipy's percentile bootstrap (drawing indices), whether the grades take few values
(resampled as counts of each) or many (resampled by index in blocks), and imports no scipy."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from judges.runs.intervals import BLOCK_VALUES, DISTINCT_BY_COUNTS, bootstrap_means, mean_interval, wilson


@pytest.mark.parametrize(("passed", "n"), [(0, 1), (1, 1), (0, 32), (7, 32), (16, 32), (32, 32), (3, 240), (199, 240)])
def test_wilson_matches_scipy(passed, n):
    expected = binomtest(passed, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(passed, n) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_by_hand():
    # 8 of 10 at z = 1.959964: centre 0.7166, half-width 0.2267 (worked with a calculator)
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 0) == (None, None)


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


def test_a_runs_intervals_never_import_scipy():
    """Importing scipy.stats took half a second of a cached re-run's one second: the report's intervals do without."""
    code = (
        "import sys\nfrom judges.runs.intervals import mean_interval, wilson\n"
        "assert mean_interval([1, 2, 3, 5, 5, 4], (1.0, 5.0))[0] is not None and wilson(3, 7)[0] is not None\n"
        "print('scipy' in sys.modules)"
    )
    root = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": root}, check=True
    )
    assert out.stdout.strip() == "False"
