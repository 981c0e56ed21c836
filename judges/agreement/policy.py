"""What happens to null, failed and missing judge outcomes: exclude, count as wrong, or impute; with counts."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from judges.agreement.outcome_columns import OutcomeColumns


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
    outcomes: OutcomeColumns, positions: np.ndarray, policy: Policy, judge_range: tuple[float, float]
) -> tuple[np.ndarray, OutcomeCounts]:
    """One judge value per item (NaN = excluded) and the counts.

    `positions` place each item's mean human label on its scale (0 = lowest, 1 = highest); a value
    counted as wrong is the end of `judge_range` farthest from it (the low end when the label is in
    the upper half or the middle, else the high end). Imputation uses the median of the graded values,
    the rule of the RAGChecker meta-evaluation for its missing metric values.
    """
    import numpy as np  # defers numpy

    from judges.agreement.outcome_columns import FAILED, GRADE, MISSING, NULL  # defers numpy

    states, scores = outcomes.states, outcomes.scores
    grade = states == GRADE
    graded = scores[grade & ~np.isnan(scores)]
    median = float(np.median(graded)) if graded.size else None
    values = np.where(grade, scores, np.nan)
    rest = ~grade
    n_rest = int(np.count_nonzero(rest))
    counts = {
        "graded": int(np.count_nonzero(grade)),
        "null": int(np.count_nonzero(states == NULL)),
        "failed": int(np.count_nonzero(states == FAILED)),
        "missing": int(np.count_nonzero(states == MISSING)),
    }
    if policy is Policy.EXCLUDE or (policy is Policy.IMPUTE and median is None):
        counts["excluded"] = n_rest
    elif policy is Policy.WRONG:
        counts["counted_wrong"] = n_rest
        values[rest] = np.where(np.asarray(positions)[rest] >= 0.5, judge_range[0], judge_range[1])
    else:
        counts["imputed"] = n_rest
        values[rest] = median
    return values, OutcomeCounts(**counts)
