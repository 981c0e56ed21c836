"""A proportion's confidence sequence valid at every number of labels at once: the beta-binomial mixture martingale.

Howard, Ramdas, McAuliffe and Sekhon (2021), "Time-uniform, nonparametric, nonasymptotic confidence sequences",
Ann. Statist. 49(2), the conjugate beta-binomial mixture (Robbins 1970): for Bernoulli observations of mean p,
after t observations with s successes,

    M_t(p) = B(a + s, b + t - s) / B(a, b) / (p^s (1 - p)^(t - s))

(the likelihood of the data mixed over q ~ Beta(a, b), over its likelihood at p) is a nonnegative martingale with
M_0 = 1 when p is the true mean, so by Ville's inequality P(M_t(p) >= 1/alpha for some t) <= alpha. The set
{p : M_t(p) < 1/alpha} is an interval holding the observed rate (the mixture never beats the best likelihood);
its lower end is the one-sided lower bound, its upper end the upper bound, and both hold at every t at once with
probability 1 - alpha together (they fail only on that one event). Assumptions: the observations are independent
with one mean (i.i.d. items), and the order they arrive in is fixed independently of their outcomes.
"""

from __future__ import annotations

import math
from typing import Any

PRIOR = (1.0, 1.0)  # Beta(a, b) mixing the alternatives: uniform, so M_t(p) = 1 / ((t + 1) C(t, s) p^s (1 - p)^(t - s))
ALPHA = 0.05  # one-sided 95%, as the fixed-n certificate's bounds
TOLERANCE = 1e-10


def log_mixture(successes: Any, trials: Any, p: Any, prior: tuple[float, float] = PRIOR) -> Any:
    """log M_t(p), elementwise over numpy arrays (or floats); +inf where p is 0 or 1 and the data rule it out."""
    import numpy as np  # defers numpy
    from scipy.special import betaln, xlog1py, xlogy  # defers scipy

    s = np.asarray(successes, dtype=float)
    t = np.asarray(trials, dtype=float)
    q = np.asarray(p, dtype=float)
    a, b = prior
    with np.errstate(divide="ignore", invalid="ignore"):
        likelihood = xlogy(s, q) + xlog1py(t - s, -q)
        return betaln(a + s, b + t - s) - betaln(a, b) - likelihood


def excludes(successes: Any, trials: Any, p: Any, alpha: float = ALPHA, prior: tuple[float, float] = PRIOR) -> Any:
    """Where the sequence has ruled p out at this count (M_t(p) >= 1/alpha), elementwise; t = 0 rules nothing out."""
    import numpy as np  # defers numpy

    with np.errstate(invalid="ignore"):
        return np.asarray(log_mixture(successes, trials, p, prior)) >= -math.log(alpha)


def lower_bound(successes: int, trials: int, alpha: float = ALPHA, prior: tuple[float, float] = PRIOR) -> float:
    """The smallest p the sequence has not ruled out after `successes` in `trials` (0 before any success)."""
    from scipy.optimize import brentq  # defers scipy

    if trials <= 0 or successes <= 0:
        return 0.0
    rate = successes / trials
    limit = -math.log(alpha)
    if float(log_mixture(successes, trials, TOLERANCE, prior)) < limit:
        return 0.0
    return float(brentq(lambda p: float(log_mixture(successes, trials, p, prior)) - limit, TOLERANCE, rate, xtol=1e-12))


def upper_bound(successes: int, trials: int, alpha: float = ALPHA, prior: tuple[float, float] = PRIOR) -> float:
    """The largest p the sequence has not ruled out (1 while every trial succeeded): the lower bound of failures."""
    a, b = prior
    return 1.0 - lower_bound(trials - successes, trials, alpha, (b, a))
