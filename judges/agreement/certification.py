"""Certifying a judge before it gates: one-sided 95% lower bounds against bars, and how many labels would decide."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judges.agreement.bootstrap import Figure
from judges.agreement.confusion import JudgeErrors
from judges.errors import ConfigError

LEVEL = 0.95  # every bound is a one-sided 95% lower bound
TWO_SIDED_FOR_BOOTSTRAP = 2 * LEVEL - 1  # the percentile interval whose lower end is that one-sided bound (0.90)
MOST_LABELS = 10**9  # the scan for "labels that would decide" stops here
FEWEST_PER_CLASS = 10  # below this a bootstrap interval rests on resamples missing a class, and an exact bound on
# a perfect record is at most 0.05 ** (1 / 9) = 0.717: no bar worth certifying
RATES = ("balanced_accuracy", "f1", "auroc", "agreement", "agreement_decisive", "system_level_pairwise_accuracy")
RECALLS = ("sensitivity (tpr)", "specificity (tnr)")


def exact_lower_bound(successes: float, trials: float, level: float = LEVEL) -> float:
    """The one-sided Clopper-Pearson lower bound of a proportion: the `1 - level` quantile of
    Beta(k, n - k + 1), 0 when k is 0 (scipy's binomtest(k, n, alternative="greater").proportion_ci(level,
    "exact").low for whole counts; the same formula at a fractional k, the observed rate times a larger n)."""
    from scipy.stats import beta  # defers scipy

    if trials <= 0:
        raise ValueError("a lower bound needs at least one trial")
    if successes <= 0:
        return 0.0
    return float(beta.ppf(1 - level, successes, trials - successes + 1))


def exact_upper_bound(successes: float, trials: float, level: float = LEVEL) -> float:
    """The one-sided Clopper-Pearson upper bound of a proportion: the `level` quantile of Beta(k + 1, n - k), 1 when
    every trial succeeded."""
    from scipy.stats import beta  # defers scipy

    if successes >= trials:
        return 1.0
    return float(beta.ppf(level, successes + 1, trials - successes))


def smallest_deciding_n(bound_at: Callable[[int], float], bar: float, start: int) -> int | None:
    """The smallest n >= `start` whose bound reaches `bar` (the bound grows with n at a fixed rate), found by
    doubling then bisection; None when not even MOST_LABELS reach it."""
    if bound_at(start) >= bar:
        return start
    low, high = start, start * 2
    while bound_at(high) < bar:
        if high >= MOST_LABELS:
            return None
        low, high = high, min(high * 2, MOST_LABELS)
    while high - low > 1:  # bound_at(low) < bar <= bound_at(high)
        middle = (low + high) // 2
        low, high = (middle, high) if bound_at(middle) < bar else (low, middle)
    return high


@dataclass(frozen=True)
class BoundCheck:
    """One bar: the statistic, its observed value and lower bound, how it was bounded, and (when it misses) the
    labels that would decide it at the observed rates, or None when no number would (`reason` says why)."""

    statistic: str
    bar: float
    value: float | None
    lower_bound: float | None
    n: int
    method: str
    labelled: int  # labels the figure rests on now (label rows for a recall, items for a bootstrap figure)
    labels_needed: int | None = None  # labels in all (of every class) at which the bound would reach the bar
    reason: str | None = None
    undecided: str | None = None  # why these labels cannot decide the bar (too few of a class, undefined on them)

    @property
    def passed(self) -> bool:
        return self.undecided is None and self.lower_bound is not None and self.lower_bound >= self.bar

    def more_labels(self) -> int | None:
        """Labels to add before the bar is decided (0: decided now; None: no number would decide it)."""
        if self.labels_needed is None:
            return None
        return 0 if self.labels_needed <= self.labelled else self.labels_needed - self.labelled

    def describe(self) -> str:
        if self.undecided is not None:
            observed = "" if self.value is None else f"observed {self.value:.3f} on {self.n}; "
            return f"UNDECIDED {self.statistic} >= {self.bar:g}: {observed}{self.undecided}"
        if self.value is None or self.lower_bound is None:
            return f"FAIL {self.statistic} >= {self.bar:g}: undefined ({self.reason})"
        head = (
            f"{'PASS' if self.passed else 'FAIL'} {self.statistic} >= {self.bar:g}: observed {self.value:.3f} "
            f"on {self.n}, 95% lower bound {self.lower_bound:.3f} ({self.method})"
        )
        if self.passed:
            return head
        more = self.more_labels()
        if more is None or self.labels_needed == self.labelled:
            return f"{head}; {self.reason}"
        return f"{head}; about {more} more labels ({self.labels_needed} in all), at the observed rates, would decide it"

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "bar": self.bar,
            "value": self.value,
            "lower_bound": self.lower_bound,
            "n": self.n,
            "method": self.method,
            "passed": self.passed,
            "labels_needed": self.labels_needed,
            "labelled": self.labelled,
            "more_labels": None if self.passed else self.more_labels(),
            "reason": self.reason,
            "undecided": self.undecided,
        }


BELOW = "no number of labels: the observed rate is below the bar"


def decided(upper: float) -> str:
    """A missed bar already settled: the upper bound is below it, so more labels would only confirm the miss."""
    return f"decided now: the 95% upper bound {upper:.3f} is below the bar; no more labels would certify it"


EQUAL = "no number of labels: the observed rate only equals the bar"
CLOPPER_PEARSON = "one-sided exact Clopper-Pearson"


def rate_check(name: str, hits: int, total: int, bar: float, rows: int, undefined: str) -> BoundCheck:
    """The bar on a rate of `hits` in `total` (a recall: the label rows of one class, of `rows` in all)."""
    check = functools.partial(BoundCheck, name, bar, method=CLOPPER_PEARSON, labelled=rows)
    if total == 0:
        return check(None, None, 0, reason=undefined)
    rate = hits / total
    bound = exact_lower_bound(hits, total)
    if bound >= bar:
        return check(rate, bound, total)
    if rate == bar:
        return check(rate, bound, total, reason=EQUAL)
    if rate < bar:  # the bar is missed for good once the upper bound falls below it
        upper = exact_upper_bound(hits, total)
        if upper < bar:
            return check(rate, bound, total, labels_needed=rows, reason=decided(upper))
        needed = smallest_deciding_n(lambda n: -exact_upper_bound(rate * n, n), -bar, total)
    else:
        needed = smallest_deciding_n(lambda n: exact_lower_bound(rate * n, n), bar, total)
    if needed is None:
        return check(rate, bound, total, reason=f"no number of labels up to {MOST_LABELS:,}")
    return check(rate, bound, total, labels_needed=math.ceil(needed * rows / total))


def recall_checks(errors: JudgeErrors, bar: float) -> list[BoundCheck]:
    """Binary labels: sensitivity (TPR, recall of human 1) and specificity (TNR, recall of human 0), each with
    its exact lower bound, from the confusion matrix (rows judge, columns human; over label rows)."""
    (judge0_human0, judge0_human1), (judge1_human0, judge1_human1) = errors.matrix
    positives, negatives = judge0_human1 + judge1_human1, judge0_human0 + judge1_human0
    rows = positives + negatives
    return [
        rate_check("sensitivity (tpr)", judge1_human1, positives, bar, rows, "no item labelled 1: label both classes"),
        rate_check("specificity (tnr)", judge0_human0, negatives, bar, rows, "no item labelled 0: label both classes"),
    ]


def figure_check(figure: Figure, bar: float) -> BoundCheck:
    """A bar on a bootstrap figure's lower end (the 90% two-sided percentile interval's, a one-sided 95% bound);
    the labels that would decide it shrink the interval's lower half-width as 1 / sqrt(n)."""
    n = figure.n_items
    check = functools.partial(BoundCheck, figure.statistic, bar, method="bootstrap percentile", labelled=n)
    if figure.value is None or figure.ci is None:
        return check(figure.value, None, n, reason=figure.note or "no interval")
    value, low = figure.value, figure.ci[0]
    if low >= bar:
        return check(value, low, n)
    if value <= bar:
        return check(value, low, n, reason="no number of labels: the observed value is not above the bar")
    needed = math.ceil(n * ((value - low) / (value - bar)) ** 2)
    return check(value, low, n, labels_needed=max(needed, n + 1))


def statistic_checks(figures: Sequence[Figure], bars: dict[str, float]) -> list[BoundCheck]:
    """Each `--min STAT=VALUE` bar against its figure; an unknown statistic is named with the ones measured."""
    by_name = {figure.statistic: figure for figure in figures}
    checks = []
    for name, bar in bars.items():
        if name not in by_name:
            known = ", ".join(f.statistic for f in figures if f.value is not None)
            raise ConfigError(f"--min {name}=...: no such statistic for these labels; measured: {known}")
        checks.append(figure_check(by_name[name], bar))
    return checks


def statistic_range(name: str) -> tuple[float, float]:
    """The values a statistic can take (every one is higher-is-better): a rate in [0, 1], a correlation or a
    chance-corrected agreement (kappa, AC1, alpha, MCC) in [-1, 1]."""
    return (0.0, 1.0) if name in RATES or name in RECALLS or name.endswith("accuracy") else (-1.0, 1.0)


def check_bar(name: str, bar: float, flag: str = "--min") -> None:
    """A ConfigError for a bar outside the statistic's range (a NaN or an infinity too): below the range every
    judge would certify, above it none could."""
    low, high = statistic_range(name)
    if not math.isfinite(bar) or not low <= bar <= high:
        raise ConfigError(
            f"{flag} {name}={bar:g}: {name} lies between {low:g} and {high:g} (higher is better); give a bar in that range"
        )


def fewest_labels(bar: float, low: float) -> int | None:
    """The fewest labels of each class a bar needs: the smallest n whose perfect record could reach it (an exact
    one-sided 95% bound of 0.05 ** (1 / n) >= bar; a bar b on a [-1, 1] statistic read as the rate (b + 1) / 2),
    and at least FEWEST_PER_CLASS; None when no number reaches it (a bar of 1)."""
    rate = bar if low == 0.0 else (bar + 1) / 2
    if rate >= 1:
        return None
    needed = math.ceil(math.log(1 - LEVEL) / math.log(rate)) if rate > 0 else 0
    return max(FEWEST_PER_CLASS, needed)


def settle(check: BoundCheck, classes: Mapping[str, int]) -> BoundCheck:
    """`check`, marked undecided when these labels cannot decide it: the statistic undefined on them (no value, or
    a binary statistic on labels of one class), or fewer labels of a class than `fewest_labels` (unless the miss is
    decided already). `classes`: label rows per class of binary labels, else {"items": n}."""
    if check.value is None or check.lower_bound is None:
        return dataclasses.replace(check, undecided=f"undefined on these labels ({check.reason or 'no value'})")
    if check.statistic in RECALLS:
        counts = {"labelled 1" if check.statistic == RECALLS[0] else "labelled 0": check.n}
    else:
        counts = {(f"labelled {k}" if k != "items" else k): n for k, n in classes.items()}
    empty = [k for k, n in counts.items() if n == 0]
    if empty:
        return dataclasses.replace(check, undecided=f"undefined on labels of one class (no item {empty[0]})")
    if not check.passed and check.more_labels() in (None, 0):
        return check  # a miss: more labels would not certify it at the observed rates
    least = fewest_labels(check.bar, statistic_range(check.statistic)[0])
    if least is None:
        return dataclasses.replace(check, undecided=f"no number of labels certifies a bar of {check.bar:g}")
    if min(counts.values()) >= least:
        return check
    each = " of each class" if len(counts) > 1 or check.statistic in RECALLS else ""
    have = ", ".join(f"{n} {k}" for k, n in counts.items())
    return dataclasses.replace(
        check, undecided=f"a bar of {check.bar:g} needs at least {least} labels{each}; these have {have}"
    )
