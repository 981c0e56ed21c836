"""The closed-form Wilson interval agrees with scipy's and with a value computed by hand."""

import pytest
from scipy.stats import binomtest

from judges.runs.intervals import wilson


@pytest.mark.parametrize(("passed", "n"), [(0, 1), (1, 1), (0, 32), (7, 32), (16, 32), (32, 32), (3, 240), (199, 240)])
def test_wilson_matches_scipy(passed, n):
    expected = binomtest(passed, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(passed, n) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_by_hand():
    # 8 of 10 at z = 1.959964: centre 0.7166, half-width 0.2267 (worked with a calculator)
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 0) == (None, None)
