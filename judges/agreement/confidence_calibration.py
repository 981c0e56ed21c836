"""How well a judge's stated confidence is calibrated against labels: the Brier score, the expected calibration
error over 10 equal-width bins, and the reliability table (per bin: items, mean confidence, observed agreement)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judges.pages.markdown import table

BINS = 10


@dataclass(frozen=True)
class ReliabilityBin:
    """One confidence bin [low, high] (the first closed on the left too): its items, their mean confidence and the
    share of them whose verdict agreed with the label."""

    low: float
    high: float
    n: int
    mean_confidence: float
    observed_agreement: float


@dataclass(frozen=True)
class ConfidenceCalibration:
    """A metric's verdicts with a stated confidence, against whether each agreed with its label."""

    metric: str
    n: int
    brier: float
    ece: float
    bins: list[ReliabilityBin]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def markdown(self) -> list[str]:
        rows = [
            {
                "confidence bin": f"{b.low:.1f}-{b.high:.1f}",
                "n": b.n,
                "mean confidence": f"{b.mean_confidence:.3f}",
                "observed agreement": f"{b.observed_agreement:.3f}",
            }
            for b in self.bins
        ]
        return [
            f"### {self.metric}: calibration of the judge's confidence ({self.n} verdicts)",
            "",
            f"Brier score {self.brier:.4f}; expected calibration error {self.ece:.4f} ({BINS} equal-width bins). "
            "A verdict agrees when the judge's call is the label.",
            "",
            table(rows),
        ]


def confidence_calibration(
    metric: str, confidences: Sequence[float], agreed: Sequence[bool]
) -> ConfidenceCalibration | None:
    """Brier score (scikit-learn's), ECE = sum over bins of (n_b / n) |mean confidence - observed agreement|, and
    the non-empty bins of scikit-learn's `calibration_curve` (uniform, 10 bins) with their counts; None when no
    verdict has a confidence."""
    from sklearn.calibration import calibration_curve  # defers sklearn (agreement on continuous labels never needs it)
    from sklearn.metrics import brier_score_loss  # defers sklearn

    if not confidences:
        return None
    confidence = np.asarray(confidences, dtype=float)
    outcome = np.asarray(agreed, dtype=int)
    observed, mean_confidence = calibration_curve(outcome, confidence, n_bins=BINS, strategy="uniform")
    edges = np.linspace(0.0, 1.0, BINS + 1)
    bin_of = np.searchsorted(edges[1:-1], confidence)  # calibration_curve's own binning
    counts = np.bincount(bin_of, minlength=BINS)
    filled = np.flatnonzero(counts)
    bins = [
        ReliabilityBin(
            round(float(edges[b]), 1), round(float(edges[b + 1]), 1), int(counts[b]), float(mean), float(seen)
        )
        for b, mean, seen in zip(filled, mean_confidence, observed, strict=True)
    ]
    ece = float(sum(b.n * abs(b.mean_confidence - b.observed_agreement) for b in bins) / len(confidence))
    brier = float(brier_score_loss(outcome, confidence, pos_label=1))
    return ConfidenceCalibration(metric, len(confidence), brier, ece, bins)
