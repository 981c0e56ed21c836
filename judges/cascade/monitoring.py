"""A deployed cascade watched: per judge, windowed confidence sequences on the kept verdicts' agreement with audit
labels, and on the share each judge keeps and its verdict rate (no labels needed), each with its false-alarm budget.

Every test is a confidence sequence of `judges.agreement.confidence_sequence` (the beta-binomial mixture of Howard,
Ramdas, McAuliffe and Sekhon 2021), run afresh in each window so the alarm follows recent traffic. The monitor's
false-alarm budget `alpha` is split equally over its families (per judge: agreement when audit labels are given,
share kept, verdict rate), and a family's budget over the K planned windows (Bonferroni), so while the deployment
stays like the calibration the monitor alarms with probability at most `alpha` over the whole stream. A figure of
the calibration is an estimate: its exact interval takes half its family's budget, the sequence the other half, and
the alarm needs the sequence to exclude the whole interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judges.agreement.confidence_sequence import excludes, log_mixture, upper_bound
from judges.labels.schema import LabelType

AGREEMENT, SHARE_KEPT, VERDICT_RATE = "agreement", "share kept", "verdict rate"


@dataclass(frozen=True)
class Plan:
    """The windows and the budget: `window` audit labels per agreement window, `item_window` decisions per label-free
    window, `windows` planned windows of each (K; windows after them are not tested), `alpha` the whole budget."""

    window: int = 200
    windows: int = 20
    item_window: int = 1000
    alpha: float = 0.05


@dataclass(frozen=True)
class Alarm:
    """The first window whose sequence excludes the reference: where (window, count in it, place in the stream)."""

    family: str
    judge: str
    window: int  # 1-based
    at: int  # observations of the window when it rang
    position: int  # 1-based place in the family's stream: audit label of the judge, or decision
    bound: float  # the sequence's bound that crossed the reference
    reference: tuple[float, float]

    def line(self) -> str:
        """One line naming the judge, the window and the bound."""
        if self.family == AGREEMENT:
            return (
                f"alarm: {self.judge}'s kept verdicts agree with the audit labels at most {self.bound:.3f} in audit "
                f"window {self.window} (after {self.at} of its labels, audit label {self.position} of {self.judge}), "
                f"below the target {self.reference[0]:g}"
            )
        low, high = self.reference
        side = f"at most {self.bound:.3f}" if self.bound < low else f"at least {self.bound:.3f}"
        return (
            f"alarm: {self.judge}'s {self.family} is {side} in item window {self.window} (after {self.at} decisions, "
            f"decision {self.position}), outside the reference [{low:.3f}, {high:.3f}]"
        )


@dataclass(frozen=True)
class Sequence:
    """One family's test: its observations in order (1 success, 0 not), where each belongs (the window, 0-based;
    -1 untested), its reference interval, the level of each window's sequence, and its alarm if any."""

    family: str
    judge: str
    hits: np.ndarray
    window_of: np.ndarray
    positions: np.ndarray  # 1-based place of each observation in the family's stream
    reference: tuple[float, float]
    alpha_window: float
    alarm: Alarm | None = None
    notes: list[str] = field(default_factory=list)


def window_counts(hits: np.ndarray, window_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Successes and trials so far within each observation's own window (counts restart at each window)."""
    total = np.cumsum(hits, dtype=float)
    if not len(hits):
        return np.zeros(0), np.zeros(0)
    starts = np.flatnonzero(np.r_[True, window_of[1:] != window_of[:-1]])
    owner = np.repeat(starts, np.diff(np.r_[starts, len(hits)]))
    before = np.where(owner > 0, total[owner - 1], 0.0)
    successes = total - before
    trials = np.arange(len(hits)) - owner + 1.0
    return successes, trials


def first_crossing(hits: np.ndarray, window_of: np.ndarray, reference: tuple[float, float], alpha: float) -> int | None:
    """The index of the first tested observation at which its window's sequence (level `alpha`) excludes every rate
    in `reference` (below its low end or above its high end); None when it never does."""
    if not len(hits):
        return None
    successes, trials = window_counts(hits, window_of)
    low, high = reference
    rate = successes / trials
    below = (rate < low) & excludes(successes, trials, low, alpha)
    above = (rate > high) & excludes(successes, trials, high, alpha) if high < 1 else np.zeros(len(hits), bool)
    crossed = np.flatnonzero((below | above) & (window_of >= 0))
    return int(crossed[0]) if len(crossed) else None


def run_sequence(sequence: Sequence) -> Sequence:
    """The sequence with its alarm found (the bound at the alarm by the exact root of the mixture)."""
    index = first_crossing(sequence.hits, sequence.window_of, sequence.reference, sequence.alpha_window)
    if index is None:
        return sequence
    successes, trials = (int(v[index]) for v in window_counts(sequence.hits, sequence.window_of))
    low, _ = sequence.reference
    if successes / trials < low:
        bound = upper_bound(successes, trials, sequence.alpha_window)
    else:
        bound = 1.0 - upper_bound(trials - successes, trials, sequence.alpha_window)
    alarm = Alarm(
        sequence.family,
        sequence.judge,
        int(sequence.window_of[index]) + 1,
        trials,
        int(sequence.positions[index]),
        bound,
        sequence.reference,
    )
    return Sequence(**{**sequence.__dict__, "alarm": alarm})


def bounds_at(successes: Any, trials: Any, alpha: float, steps: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """The sequence's lower and upper bounds at each (successes, trials), by bisection on the mixture elementwise
    (log M_t(p) is convex in p with its minimum at the observed rate); (0, 1) before any observation."""
    s, t = np.asarray(successes, float), np.asarray(trials, float)
    rate = np.divide(s, t, out=np.full(len(s), 0.5), where=t > 0)
    limit = -np.log(alpha)
    ends = []
    for far in (0.0, 1.0):
        inside, outside = rate.copy(), np.full(len(s), far)
        for _ in range(steps):
            middle = (inside + outside) / 2
            ruled_out = np.asarray(log_mixture(s, t, middle)) >= limit
            outside = np.where(ruled_out, middle, outside)
            inside = np.where(ruled_out, inside, middle)
        ends.append(np.where(t > 0, inside, far))
    return ends[0], ends[1]


def exact_interval(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """The two-sided exact (Clopper-Pearson) interval at level `alpha`; [0, 1] with no trials."""
    from scipy.stats import beta  # defers scipy

    if trials <= 0:
        return 0.0, 1.0
    low = 0.0 if successes == 0 else float(beta.ppf(alpha / 2, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return low, high


def agreeing(verdicts: np.ndarray, labels: np.ndarray, label_type: LabelType) -> np.ndarray:
    """Whether each kept verdict (already the judge's call) is the label's: a preference by its sign."""
    if label_type is LabelType.PREFERENCE:
        labels = np.sign(labels)
    return np.asarray(verdicts == labels)


def positive(verdicts: np.ndarray, label_type: LabelType, reference: np.ndarray) -> np.ndarray:
    """The verdict rate's event: a binary call of 1, a preference for the first, an ordinal grade at or above the
    reference period's median grade."""
    if label_type is LabelType.BINARY:
        return np.asarray(verdicts == 1)
    if label_type is LabelType.PREFERENCE:
        return np.asarray(verdicts > 0)
    middle = float(np.median(reference)) if len(reference) else 0.0
    return np.asarray(verdicts >= middle)
