"""What happens to null, failed and missing judge outcomes: exclude, count as wrong, or impute; with counts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from judges.agreement.predictions import Prediction
from judges.types import VerdictState


class Policy(str, Enum):
    """exclude: drop the item; wrong: give it the judge value farthest from the human label; impute: the median."""

    EXCLUDE = "exclude"
    WRONG = "wrong"
    IMPUTE = "impute"


@dataclass(frozen=True)
class OutcomeCounts:
    """Per labelled item: what the judge gave, and what the policy did with the rest."""

    graded: int = 0
    null: int = 0
    failed: int = 0
    missing: int = 0  # no prediction for a labelled item
    excluded: int = 0
    counted_wrong: int = 0
    imputed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def apply_policy(
    outcomes: Sequence[Prediction | None], positions: Iterable[float], policy: Policy, judge_range: tuple[float, float]
) -> tuple[list[float | None], OutcomeCounts]:
    """One judge value per item (None = excluded) and the counts.

    `positions` place each item's mean human label on its scale (0 = lowest, 1 = highest); a value
    counted as wrong is the end of `judge_range` farthest from it (the low end when the label is in
    the upper half or the middle, else the high end). Imputation uses the median of the graded values,
    the rule of the RAGChecker meta-evaluation for its missing metric values.
    """
    import numpy as np

    graded = [o.score for o in outcomes if o is not None and o.state is VerdictState.GRADE and o.score is not None]
    median = float(np.median(graded)) if graded else None
    values: list[float | None] = []
    counts = {"graded": 0, "null": 0, "failed": 0, "missing": 0, "excluded": 0, "counted_wrong": 0, "imputed": 0}
    for outcome, position in zip(outcomes, positions, strict=True):
        if outcome is not None and outcome.state is VerdictState.GRADE:
            counts["graded"] += 1
            values.append(outcome.score)
            continue
        counts["missing" if outcome is None else "null" if outcome.state is VerdictState.NULL else "failed"] += 1
        if policy is Policy.EXCLUDE or (policy is Policy.IMPUTE and median is None):
            counts["excluded"] += 1
            values.append(None)
        elif policy is Policy.WRONG:
            counts["counted_wrong"] += 1
            values.append(judge_range[0] if position >= 0.5 else judge_range[1])
        else:
            counts["imputed"] += 1
            values.append(median)
    return values, OutcomeCounts(**counts)
