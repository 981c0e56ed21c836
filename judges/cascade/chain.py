"""The cascade calibrated: judges cheapest first, each on the labelled items the earlier ones did not keep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judges.cascade.fixed_sequence import MIN_KEPT, ThresholdChoice, choose_threshold
from judges.cascade.sources import Judge, judge_arrays_among
from judges.cascade.verdicts import VerdictRule


@dataclass(frozen=True)
class Calibrated:
    """One judge of the cascade and the threshold chosen for it on the items that reached it."""

    judge: Judge
    choice: ThresholdChoice

    @property
    def kept(self) -> int:
        chosen = self.choice.chosen
        return chosen.kept if chosen else 0


def calibrate_cascade(
    judges: Sequence[Judge],
    labels: Mapping[str, float],
    rule: VerdictRule,
    *,
    target: float,
    delta: float,
    min_kept: int = MIN_KEPT,
) -> list[Calibrated]:
    """Each judge's threshold (`choose_threshold`) on the labelled items no earlier judge kept. Every judge must have
    a prediction for every item that reaches it (else one line naming the judge and the first id it lacks)."""
    ids = list(labels)
    truth = np.fromiter(labels.values(), dtype=float, count=len(ids))
    remaining = np.arange(len(ids))
    out = []
    for judge in judges:
        scores, confidences = judge_arrays_among(judge, ids, remaining, rule)
        agrees = rule.agree_column(scores, truth[remaining])
        choice = choose_threshold(confidences, agrees, target=target, delta=delta, min_kept=min_kept)
        out.append(Calibrated(judge, choice))
        if choice.threshold is not None:
            with np.errstate(invalid="ignore"):
                kept = confidences >= choice.threshold
            remaining = remaining[~kept]
    return out
