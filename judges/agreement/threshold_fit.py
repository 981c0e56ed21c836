"""The threshold stage of measuring agreement: a given cut, a 0/1 judge, or a cut fitted by Youden's J."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from judges.agreement.label_rows import fit_on, grouped, majority_labels
from judges.agreement.outcome_columns import OutcomeColumns
from judges.agreement.predictions import Predictions
from judges.agreement.threshold import (
    MIN_CALIBRATION_ITEMS,
    Calibration,
    FittedThreshold,
    cross_fitted_cuts,
    split_ids,
    youden_threshold,
)
from judges.labels.schema import Annotation, LabelType

Annotations = Sequence[Annotation]


@dataclass
class Matched:
    """The labelled items of one metric in order, their annotations and judge outcomes (turned to higher is better)."""

    metric: str
    ids: list[str]
    annotations: Annotations
    outcomes: OutcomeColumns
    turn: Callable[[float], float]
    higher_is_better: bool
    n_matched: int  # items with a judge outcome (graded or not), before any are held out
    single: np.ndarray | None = None  # each item's label when every item has exactly one


@dataclass
class Threshold:
    """The cut the figures use (on the turned scores), how it was fitted, and whether it is still to cross-fit."""

    cut: float | None = None
    fitted: FittedThreshold | None = None
    cross_fit: bool = False


@dataclass
class _Held:
    """A cut fitted on held-out items: the items kept for the figures, and where the cut came from."""

    cut: float | None
    n_fit: int
    keep: list[int]
    where: tuple[str, str]


def choose_threshold(
    matched: Matched,
    label_type: LabelType,
    threshold: float | None,
    calibration: Calibration,
    predictions: Predictions,
    notes: list[str],
) -> Threshold:
    """The cut for binary labels; on a cut fitted on held-out items, `matched` keeps only the other items."""
    zero_one = bool(np.isin(matched.outcomes.scored(), (0.0, 1.0)).all())
    if label_type is LabelType.BINARY and zero_one:
        notes.append("the judge gives 0/1 grades: used as given (the plain 0.5 cut)")
        return Threshold(threshold)
    if label_type is LabelType.BINARY and threshold is not None:
        notes.append(f"judge scores cut at {threshold:g} (given)")
        return Threshold(matched.turn(threshold))
    if label_type is not LabelType.BINARY:
        return Threshold(threshold)
    held: _Held | None
    if calibration.items is not None:
        held = _fit_on_calibration_items(matched, calibration, predictions, notes)
    elif calibration.fraction is not None:
        held = _fit_on_calibration_fraction(matched, calibration, notes)
    else:
        held = None
    if held is None:
        return Threshold(threshold, cross_fit=True)
    keep = held.keep
    matched.ids, matched.annotations = [matched.ids[n] for n in keep], [matched.annotations[n] for n in keep]
    matched.outcomes = matched.outcomes.take(keep)
    if matched.single is not None:
        matched.single = matched.single[np.asarray(keep, dtype=np.int64)]
    if held.cut is None:
        notes.append("no threshold: the calibration items hold one class only (or no graded score)")
        return Threshold(threshold)
    fitted = FittedThreshold(
        matched.turn(held.cut),
        held.where[0],
        held.where[1],
        held.n_fit,
        len(matched.ids),
        higher_is_better=matched.higher_is_better,
    )
    return Threshold(held.cut, fitted)


def _fit_on_calibration_items(
    matched: Matched, calibration: Calibration, predictions: Predictions, notes: list[str]
) -> _Held:
    assert calibration.items is not None
    held = calibration.items.for_metric(matched.metric)
    held_ids, held_annotations = grouped(held)
    held_scores = {
        i: o.score for i in held_ids if (o := predictions.get(i, matched.metric)) is not None and o.score is not None
    }
    held_scores = {i: matched.turn(v) for i, v in held_scores.items()}
    cut, n_fit = fit_on(held_ids, majority_labels(held_annotations), held_scores)
    overlap = set(held_ids) & set(matched.ids)
    keep = [n for n, i in enumerate(matched.ids) if i not in overlap]
    if overlap:
        notes.append(f"{len(overlap)} calibration items are also labelled here: left out of the figures")
    return _Held(
        cut, n_fit, keep, ("calibration-file", f"the calibration set {held.source or held.name} ({n_fit} items)")
    )


def _fit_on_calibration_fraction(matched: Matched, calibration: Calibration, notes: list[str]) -> _Held | None:
    """A cut fitted on a seeded fraction of the items, or None (cross-fit instead) when it holds too few graded."""
    assert calibration.fraction is not None
    ids = matched.ids
    column = matched.outcomes.scores
    scores = {ids[n]: column[n] for n in np.flatnonzero(~np.isnan(column)).tolist()}
    held_ids, rest = split_ids(ids, calibration.fraction, calibration.seed)
    n_fit = sum(i in scores for i in held_ids)
    if n_fit < MIN_CALIBRATION_ITEMS:
        notes.append(
            f"a {calibration.fraction:.0%} calibration split holds {n_fit} graded items "
            f"(< {MIN_CALIBRATION_ITEMS}): the threshold is cross-fitted instead"
        )
        return None
    place = {i: n for n, i in enumerate(ids)}
    cut, _ = fit_on(held_ids, majority_labels([matched.annotations[place[i]] for i in held_ids]), scores)
    reported = set(rest)
    keep = [n for n, i in enumerate(ids) if i in reported]
    where = (
        "calibration-fraction",
        f"a calibration split of {calibration.fraction:.0%} of the items (seed {calibration.seed}, {n_fit} graded)",
    )
    return _Held(cut, n_fit, keep, where)


def cross_fit(
    matched: Matched,
    values: np.ndarray,
    kept: np.ndarray,
    calibration: Calibration,
    chosen: Threshold,
    notes: list[str],
) -> np.ndarray | None:
    """Each kept item's 0/1 view cut by a threshold fitted on the other folds (None when it cannot be); sets
    `chosen`'s cut and fitted threshold to the one fitted on all kept items."""
    item_labels = majority_labels([matched.annotations[n] for n in kept])
    item_scores = values[kept]
    made = cross_fitted_cuts(item_labels, item_scores, calibration.folds, calibration.seed)
    cut = youden_threshold(item_labels, item_scores)
    if made is None or cut is None:
        notes.append("no threshold: too few items of one class to cross-fit one")
        return None
    cuts, k = made
    chosen.cut = cut
    chosen.fitted = FittedThreshold(
        matched.turn(cut),
        "cross-fitted",
        f"{k}-fold cross-fitting over all {len(kept)} items "
        f"(each item cut by a threshold fitted on the other folds, seed "
        f"{calibration.seed}); the saved threshold is fitted on all of them",
        len(kept),
        len(kept),
        folds=k,
        higher_is_better=matched.higher_is_better,
    )
    return cuts
