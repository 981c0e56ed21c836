"""The closed-form Wilson interval and the numpy bootstrap of a mean grade agree with scipy's (and Wilson with a value
computed by hand)."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from judges.runs.intervals import RESAMPLES, SEED, mean_interval, wilson


@pytest.mark.parametrize(("passed", "n"), [(0, 1), (1, 1), (0, 32), (7, 32), (16, 32), (32, 32), (3, 240), (199, 240)])
def test_wilson_matches_scipy(passed, n):
    expected = binomtest(passed, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(passed, n) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_by_hand():
    # 8 of 10 at z = 1.959964: centre 0.7166, half-width 0.2267 (worked with a calculator)
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 0) == (None, None)


@pytest.mark.parametrize(
    "values",
    [
        [1.0, 1.0, 1.0, 0.0, 1.0],
        [5, 5, 1, 5, 5, 4],
        [0.0, 1.0] * 7 + [1.0],
        [3, 4, 5, 2, 1, 5, 5, 4, 3, 3, 2, 5] * 12,
        [0.125 * (i % 9) for i in range(301)],
    ],
)
def test_mean_interval_gives_scipys_percentile_bootstrap_to_the_last_bit(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy names its seed argument `rng` now; `random_state` still works
        expected = bootstrap(
            (np.asarray(values, dtype=float),),
            np.mean,
            method="percentile",
            n_resamples=RESAMPLES,
            random_state=np.random.default_rng(SEED),
        ).confidence_interval
    low, high = mean_interval(values, (min(values), max(values)))
    assert (low, high) == (float(expected.low), float(expected.high))


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
