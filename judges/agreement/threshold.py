"""Thresholds for binary agreement: fitted by Youden's J (scikit-learn's ROC curve) on calibration items or cross-fitted."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judges.labels.schema import LabelledSet

DEFAULT_FOLDS = 5
MIN_CALIBRATION_ITEMS = 50  # a calibration fraction smaller than this is too few: the threshold is cross-fitted


@dataclass(frozen=True)
class Calibration:
    """Where a continuous judge's cut for binary labels is fitted: separate labelled items (`items`, e.g. from
    `--calibration FILE`), a seeded `fraction` of the items (reported on the rest), or, by default or when that
    fraction is small, k-fold cross-fitting over all items (each item cut by a threshold fitted on the other folds)."""

    items: LabelledSet | None = None
    fraction: float | None = None
    folds: int = DEFAULT_FOLDS
    seed: int = 0


@dataclass(frozen=True)
class FittedThreshold:
    """A cut fitted to maximise balanced accuracy; `value` is on the judge's own scale."""

    value: float
    split: str  # calibration-file, calibration-fraction or cross-fitted
    fitted_on: str  # in words, for the report
    n_calibration_items: int
    n_reported_items: int
    folds: int | None = None
    higher_is_better: bool = True
    method: str = "Youden's J on the ROC curve (sklearn.metrics.roc_curve), which maximises balanced accuracy"

    @property
    def rule(self) -> str:
        """The deployment rule: which scores mean the positive label."""
        return f"label 1 when score {'>=' if self.higher_is_better else '<='} {self.value:.6g}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rule": self.rule}


def youden_threshold(labels: np.ndarray, scores: np.ndarray) -> float | None:
    """The score cut (scores >= cut -> 1) maximising TPR - FPR, i.e. balanced accuracy; None with one class.

    roc_curve's thresholds are observed scores; the cut is placed midway between the best one and the next
    lower score, which gives the same balanced accuracy on these items and does not sit on an item's score.
    """
    from sklearn.metrics import roc_curve

    if len(np.unique(labels)) < 2:
        return None
    fpr, tpr, thresholds = roc_curve(labels.astype(int), scores, drop_intermediate=False)
    best = int(np.argmax((tpr - fpr)[1:])) + 1  # the first point is the "predict nothing" threshold (inf)
    if best + 1 < thresholds.size:
        return float((thresholds[best] + thresholds[best + 1]) / 2)
    return float(thresholds[best])


def cross_fitted_cuts(labels: np.ndarray, scores: np.ndarray, folds: int, seed: int) -> tuple[np.ndarray, int] | None:
    """Each item's 0/1 cut by the threshold fitted on the other folds (stratified k-fold); None when a class has
    fewer than two items. Returns the cuts and the number of folds used (fewer when a class is small)."""
    from sklearn.model_selection import StratifiedKFold

    smallest = int(min(np.sum(labels == 1), np.sum(labels == 0)))
    k = min(folds, smallest)
    if k < 2:
        return None
    cuts = np.zeros(labels.size, dtype=float)
    for train, test in StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(scores, labels):
        cut = youden_threshold(labels[train], scores[train])
        cuts[test] = (scores[test] >= cut).astype(float)  # type: ignore[operator]
    return cuts, k


def split_ids(ids: list[str], fraction: float, seed: int) -> tuple[list[str], list[str]]:
    """A seeded draw of round(fraction x items) calibration ids, and the rest (both in the given order)."""
    if not 0 < fraction < 1:
        raise ValueError(f"a calibration fraction lies strictly between 0 and 1, got {fraction:g}")
    chosen = set(np.random.default_rng(seed).choice(len(ids), size=round(fraction * len(ids)), replace=False).tolist())
    return [i for n, i in enumerate(ids) if n in chosen], [i for n, i in enumerate(ids) if n not in chosen]
