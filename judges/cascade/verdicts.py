"""A verdict's call and its confidence, and whether the call agrees with the people's label, per label type."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from judges.agreement.label_rows import grouped, majority_labels
from judges.agreement.predictions import Prediction
from judges.cascade.calibration_schema import DEFAULT_CUT
from judges.errors import ConfigError
from judges.labels.schema import LabelledSet, LabelType


@dataclass(frozen=True)
class VerdictRule:
    """How a judge's score becomes a call comparable with a label, and where its confidence comes from.

    Binary labels: the call is 1 when the score is at least `cut`, else 0; the confidence is the prediction's stated
    one, else, for a probability score in [0, 1], the probability of the predicted class (p when p >= cut, else
    1 - p: max(p, 1 - p) at 0.5). Ordinal labels: the call is the score rounded. Preferences: the call is the sign of
    the score. Those two need a stated confidence. Continuous labels have no call that can agree or not.
    """

    label_type: LabelType
    cut: float = DEFAULT_CUT

    def __post_init__(self) -> None:
        if self.label_type is LabelType.CONTINUOUS:
            raise ConfigError(
                "cascade: continuous labels have no call a verdict can agree with; use binary, ordinal or preference"
            )
        if not 0 <= self.cut <= 1:
            raise ConfigError(f"--threshold: a probability cut in [0, 1], got {self.cut:g}")

    def call(self, score: float) -> float:
        """The judge's call from its score, on the labels' terms."""
        if self.label_type is LabelType.BINARY:
            return 1.0 if score >= self.cut else 0.0
        if self.label_type is LabelType.PREFERENCE:
            return float((score > 0) - (score < 0))
        return float(round(score))

    def calls(self, scores: np.ndarray) -> np.ndarray:
        """`call` of each score, as a column."""
        if self.label_type is LabelType.BINARY:
            return (scores >= self.cut).astype(float)
        if self.label_type is LabelType.PREFERENCE:
            return np.sign(scores)
        return np.round(scores)  # half to even, as Python's round

    def derived_confidences(self, scores: np.ndarray) -> np.ndarray:
        """The confidence each score gives when its prediction states none (`confidence`): NaN where none can be
        derived (a score that is not a probability, labels other than binary)."""
        if self.label_type is not LabelType.BINARY:
            return np.full(len(scores), np.nan)
        with np.errstate(invalid="ignore"):
            probability = (scores >= 0) & (scores <= 1)
            return np.where(probability, np.where(scores >= self.cut, scores, 1 - scores), np.nan)

    def agrees(self, score: float, label: float) -> bool:
        """Whether the call on this score is the label's (a preference's direction, a grade, a class)."""
        if self.label_type is LabelType.PREFERENCE:
            label = float((label > 0) - (label < 0))
        return self.call(score) == label

    def agree_column(self, scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """`agrees` of each score (NaN: a null or a failure, never agreeing) with its label, as a column."""
        if self.label_type is LabelType.PREFERENCE:
            labels = np.sign(labels)
        return ~np.isnan(scores) & (self.calls(np.nan_to_num(scores)) == labels)

    def confidence(self, prediction: Prediction) -> float | None:
        """The verdict's confidence; None for a null or a failure (never kept), or when none can be derived."""
        if prediction.score is None:
            return None
        if prediction.confidence is not None:
            return prediction.confidence
        p = prediction.score
        if self.label_type is LabelType.BINARY and 0 <= p <= 1:
            return p if p >= self.cut else 1 - p
        return None


def item_labels(labels: LabelledSet) -> dict[str, float]:
    """One label per item: binary, the annotators' majority (a tie counts as 1, as `agreement` counts it); other
    types, the most common label (the first given on a tie)."""
    ids, annotations = grouped(labels)
    if labels.items and labels.items[0].label_type is LabelType.BINARY:
        return dict(zip(ids, (float(v) for v in majority_labels(annotations)), strict=True))
    return {i: Counter(v for _, v in given).most_common(1)[0][0] for i, given in zip(ids, annotations, strict=True)}


def shown_number(value: float | None) -> float | None:
    """A figure for a JSON file: rounded to 6 places; None stays None."""
    return None if value is None or math.isnan(value) else round(value, 6)
