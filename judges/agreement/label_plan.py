"""Planning labels before labelling: how many give the certificate with a stated chance if the judge is as expected.

Fixed n: exact, from the binomial distribution (the one-sided Clopper-Pearson bound clears the bar when the count of
right verdicts reaches the smallest k whose upper tail P(Bin(n, bar) >= k) is at most alpha). Sequential: seeded
simulation of the confidence sequence, the labels at which the chosen share of simulated orders has certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.agreement import confidence_sequence as cs

POWER = 0.8
SIMULATIONS = 2000
MOST = 200_000  # no plan beyond this many labels of one class


def smallest_certifying_count(n: Any, bar: float, alpha: float = cs.ALPHA) -> Any:
    """For each n, the fewest right verdicts whose one-sided Clopper-Pearson lower bound reaches `bar`."""
    import numpy as np  # defers numpy
    from scipy.stats import binom  # defers scipy

    n = np.asarray(n, dtype=np.int64)
    k = binom.ppf(1 - alpha, n, bar).astype(np.int64) + 1  # the first k with P(Bin(n, bar) >= k) <= alpha
    for _ in range(2):  # the quantile's float edge: step to the exact count
        k = np.where(binom.sf(k - 2, n, bar) <= alpha, k - 1, k)
        k = np.where(binom.sf(k - 1, n, bar) > alpha, k + 1, k)
    return k


def fixed_power(n: Any, bar: float, expected: float, alpha: float = cs.ALPHA) -> Any:
    """P(the one-sided Clopper-Pearson lower bound on n items reaches `bar`) when the true rate is `expected`."""
    from scipy.stats import binom  # defers scipy

    return binom.sf(smallest_certifying_count(n, bar, alpha) - 1, n, expected)


def fixed_n(bar: float, expected: float, power: float = POWER, alpha: float = cs.ALPHA) -> int | None:
    """The smallest n whose chance of certifying is at least `power` (None when the judge is not above the bar)."""
    import numpy as np  # defers numpy

    if expected <= bar:
        return None
    top = 64
    while top <= MOST:
        n = np.arange(1, top + 1)
        hit = np.flatnonzero(fixed_power(n, bar, expected, alpha) >= power)
        if hit.size:
            return int(hit[0]) + 1
        top *= 4
    return None


def sequential_n(
    bar: float, expected: float, power: float = POWER, alpha: float = cs.ALPHA, seed: int = 0, sims: int = SIMULATIONS
) -> int | None:
    """The labels at which a share `power` of seeded simulated streams (each label right with chance `expected`) has
    been certified by the confidence sequence (None when the judge is not above the bar)."""
    import numpy as np  # defers numpy

    if expected <= bar:
        return None
    horizon = 4 * (fixed_n(bar, expected, power, alpha) or 64)
    while horizon <= MOST:
        rng = np.random.default_rng(seed)
        right = rng.random((sims, horizon)) < expected
        s = np.cumsum(right, axis=1)
        t = np.arange(1, horizon + 1)
        done = (s > bar * t) & cs.excludes(s, t, bar, alpha)
        stop = np.where(done.any(axis=1), done.argmax(axis=1) + 1, np.iinfo(np.int64).max)
        needed = int(np.sort(stop)[int(np.ceil(power * sims)) - 1])
        if needed <= horizon:
            return needed
        horizon *= 4
    return None


@dataclass(frozen=True)
class PlanRow:
    """One bar's plan: the rows it counts (a class, or every item), the expected rate and the labels needed."""

    statistic: str
    bar: float
    expected: float
    rows: str  # "positives", "negatives" or "all items"
    share: float  # the share of labelled items that count for it
    fixed: int | None
    sequential: int | None

    def items(self, count: int | None) -> int | None:
        """Labelled items in all whose expected share of this bar's rows is `count`."""
        return None if count is None else _ceil(count / self.share)

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "bar": self.bar,
            "expected": self.expected,
            "rows": self.rows,
            "fixed_n": self.fixed,
            "sequential_n": self.sequential,
            "fixed_items": self.items(self.fixed),
            "sequential_items": self.items(self.sequential),
        }


def _ceil(value: float) -> int:
    whole = int(value)
    return whole if whole >= value - 1e-9 else whole + 1


def plan_row(statistic: str, bar: float, expected: float, rows: str, share: float, seed: int = 0) -> PlanRow:
    return PlanRow(
        statistic, bar, expected, rows, share, fixed_n(bar, expected), sequential_n(bar, expected, seed=seed)
    )
