"""Agreement of a judge with the human labels of one metric, and the human-human ceiling on the same set."""

from __future__ import annotations

from typing import Any

import numpy as np

from judges.agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Figure, ItemRows, figures
from judges.agreement.confusion import item_weights, judge_errors
from judges.agreement.corrected_estimate import measure_estimate
from judges.agreement.groups import measure_groups
from judges.agreement.label_rows import ceiling_rows, fit_on, grouped, majority_labels, minmax_scale, orient
from judges.agreement.policy import Policy, apply_policy
from judges.agreement.predictions import Predictions
from judges.agreement.result import MeasuredRows, MetricAgreement
from judges.agreement.statistics import JudgeScale, choose_statistics, describe_judge
from judges.agreement.systems import measure_systems
from judges.agreement.threshold import (
    MIN_CALIBRATION_ITEMS,
    Calibration,
    FittedThreshold,
    cross_fitted_cuts,
    split_ids,
    youden_threshold,
)
from judges.errors import InputError
from judges.labels.schema import LabelledSet, LabelType


def measure(
    labels: LabelledSet,
    predictions: Predictions,
    *,
    policy: Policy = Policy.EXCLUDE,
    threshold: float | None = None,
    calibration: Calibration | None = None,
    higher_is_better: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> MetricAgreement:
    """Agreement for one metric's labels (all items share the metric, label type and scale).

    Each label row (item x annotator) is one observation, the judge's value repeated for every annotator
    of the item; the bootstrap resamples items, so an item's annotators stay together. For preferences
    the judge value is its preference for answer b, min-max scaled to the label scale for the
    correlations, and its sign (unscaled) for the agreement rates.

    For binary labels and a judge whose grades are not all 0 or 1, the cut for balanced accuracy, F1, MCC
    and alpha is `threshold` when given, else fitted by Youden's J (`calibration`): on separate items, on a
    seeded fraction (the figures then rest on the other items), or by k-fold cross-fitting (the default).
    AUROC needs no cut. A 0/1 judge keeps its grades (the plain 0.5 cut).
    """
    metrics = labels.metrics()
    if len(metrics) != 1:
        raise InputError(f"{labels.name} holds several metrics ({', '.join(metrics)}): choose one with --metric")
    metric, first = metrics[0], labels.items[0]
    label_type, scale = first.label_type, first.scale
    ids, annotations = grouped(labels)
    all_outcomes, turn = orient([predictions.get(i, metric) for i in ids], scale, higher_is_better)
    matched = sum(o is not None for o in all_outcomes)
    if not any(o is not None and o.score is not None for o in all_outcomes):
        raise InputError(
            f"no graded judge outcome for any {metric} item of {labels.name} "
            f"(do the prediction ids match the item ids, e.g. {ids[0]!r}?)",
            path=predictions.source,
        )
    calibration = calibration or Calibration(seed=seed)
    notes: list[str] = (
        [] if higher_is_better else ["the judge is lower-is-better: its scores are turned around before measuring"]
    )
    fitted: FittedThreshold | None = None
    cross_fit = False
    zero_one = all(o.score in (0.0, 1.0) for o in all_outcomes if o is not None and o.score is not None)
    if label_type is LabelType.BINARY and zero_one:
        notes.append("the judge gives 0/1 grades: used as given (the plain 0.5 cut)")
    elif label_type is LabelType.BINARY and threshold is not None:
        notes.append(f"judge scores cut at {threshold:g} (given)")
        threshold = turn(threshold)
    elif label_type is LabelType.BINARY:
        keep = list(range(len(ids)))
        if calibration.items is not None:
            held = calibration.items.for_metric(metric)
            held_ids, held_annotations = grouped(held)
            held_scores = {
                i: o.score for i in held_ids if (o := predictions.get(i, metric)) is not None and o.score is not None
            }
            held_scores = {i: turn(v) for i, v in held_scores.items()}
            cut, n_fit = fit_on(held_ids, majority_labels(held_annotations), held_scores)
            overlap = set(held_ids) & set(ids)
            keep = [n for n, i in enumerate(ids) if i not in overlap]
            if overlap:
                notes.append(f"{len(overlap)} calibration items are also labelled here: left out of the figures")
            where = ("calibration-file", f"the calibration set {held.source or held.name} ({n_fit} items)")
        elif calibration.fraction is not None:
            scores = {i: o.score for i, o in zip(ids, all_outcomes) if o is not None and o.score is not None}
            held_ids, rest = split_ids(ids, calibration.fraction, calibration.seed)
            n_fit = sum(i in scores for i in held_ids)
            if n_fit >= MIN_CALIBRATION_ITEMS:
                place = {i: n for n, i in enumerate(ids)}
                cut, _ = fit_on(held_ids, majority_labels([annotations[place[i]] for i in held_ids]), scores)
                reported = set(rest)
                keep = [n for n, i in enumerate(ids) if i in reported]
                where = (
                    "calibration-fraction",
                    f"a calibration split of {calibration.fraction:.0%} of the items "
                    f"(seed {calibration.seed}, {n_fit} graded)",
                )
            else:
                notes.append(
                    f"a {calibration.fraction:.0%} calibration split holds {n_fit} graded items "
                    f"(< {MIN_CALIBRATION_ITEMS}): the threshold is cross-fitted instead"
                )
                cross_fit = True
        else:
            cross_fit = True
        if not cross_fit:
            ids, annotations = [ids[n] for n in keep], [annotations[n] for n in keep]
            all_outcomes = [all_outcomes[n] for n in keep]
            if cut is None:
                notes.append("no threshold: the calibration items hold one class only (or no graded score)")
            else:
                threshold = cut
                fitted = FittedThreshold(
                    turn(cut), where[0], where[1], n_fit, len(ids), higher_is_better=higher_is_better
                )
    outcomes = all_outcomes
    graded = [o.score for o in outcomes if o is not None and o.score is not None]
    if not graded:
        raise InputError(f"no graded judge outcome for the {metric} items left to report on", path=predictions.source)
    if label_type is LabelType.PREFERENCE:
        reach = max(abs(v) for v in graded) or 1.0
        judge_range = (-reach, reach)
    elif describe_judge(graded, label_type, scale).on_label_scale:
        judge_range = scale
    else:
        judge_range = (min(graded), max(graded))
    width = scale[1] - scale[0]
    positions = np.fromiter(
        ((sum(lab for _, lab in ann) / len(ann) - scale[0]) / width for ann in annotations),
        dtype=float,
        count=len(annotations),
    )
    values, counts = apply_policy(outcomes, positions, policy, judge_range)
    kept = np.flatnonzero(np.fromiter((v is not None for v in values), dtype=bool, count=len(values)))
    cuts: np.ndarray | None = None
    if cross_fit and kept.size:
        item_labels = majority_labels([annotations[n] for n in kept])
        item_scores = np.array([values[n] for n in kept], dtype=float)
        made = cross_fitted_cuts(item_labels, item_scores, calibration.folds, calibration.seed)
        cut = youden_threshold(item_labels, item_scores)
        if made is None or cut is None:
            notes.append("no threshold: too few items of one class to cross-fit one")
        else:
            cuts, k = made
            threshold = cut
            fitted = FittedThreshold(
                turn(cut),
                "cross-fitted",
                f"{k}-fold cross-fitting over all {len(kept)} items "
                f"(each item cut by a threshold fitted on the other folds, seed "
                f"{calibration.seed}); the saved threshold is fitted on all of them",
                len(kept),
                len(kept),
                folds=k,
                higher_is_better=higher_is_better,
            )
    judge_scale = describe_judge(graded, label_type, scale, threshold)

    # one row per (item, annotator), item by item: arrays, not per-row Python objects
    sizes = np.fromiter((len(annotations[n]) for n in kept), dtype=np.int64, count=len(kept))
    groups = ItemRows.repeated(sizes)
    h = np.fromiter((lab for n in kept for _, lab in annotations[n]), dtype=float, count=int(sizes.sum()))
    j = np.repeat(np.fromiter((values[n] for n in kept), dtype=float, count=len(kept)), sizes)
    weights = item_weights(labels)
    row_weights = None if not weights else np.repeat([weights[ids[n]] for n in kept], sizes).astype(float)
    if cuts is not None:
        binary_view = np.repeat(np.asarray(cuts, dtype=float), sizes)
    else:
        binary_view = j if judge_scale.threshold is None else (j >= judge_scale.threshold).astype(float)
    a, b, pair_groups = ceiling_rows(annotations)
    n_items, n_labels = len(ids), sum(len(ann) for ann in annotations)
    # only arrays go on to the bootstrap: the per-item Python objects (hundreds of MB at a million items) go now
    del annotations, all_outcomes, outcomes, values, graded
    views = {
        "value": j,
        "scaled": minmax_scale(j, scale) if label_type is LabelType.PREFERENCE and j.size else j,
        "binary": binary_view,
    }
    stats = choose_statistics(label_type, scale, judge_scale)
    judge_figures = figures(stats, h, views, groups, resamples=resamples, seed=seed, confidence=confidence)
    bootstrap: dict[str, Any] = {"resamples": resamples, "seed": seed, "confidence": confidence}
    has_cut = cuts is not None or judge_scale.binary or judge_scale.threshold is not None
    item_ids = [ids[n] for n in kept]
    row_item = groups.row_item
    systems = measure_systems(labels, item_ids, h, views, row_item, label_type, has_cut, notes, **bootstrap)
    per_group = measure_groups(labels, item_ids, h, views["value"], row_item, label_type, notes, **bootstrap)
    estimate = measure_estimate(labels, predictions, turn, judge_scale, **bootstrap)

    errors = None
    on_levels = views["binary"] if label_type is LabelType.BINARY else j
    if (label_type is LabelType.BINARY and (judge_scale.binary or judge_scale.threshold is not None)) or (
        label_type is LabelType.ORDINAL and judge_scale.on_label_scale
    ):
        errors = judge_errors(
            label_type,
            scale,
            h,
            on_levels,
            groups,
            row_weights=row_weights,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
        )

    ceiling: list[Figure] = []
    if pair_groups:
        human_scale = JudgeScale(on_label_scale=True, binary=label_type is LabelType.BINARY, threshold=None)
        ceiling = figures(
            choose_statistics(label_type, scale, human_scale),
            a,
            {"value": b, "scaled": b, "binary": b},
            pair_groups,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
        )
    ceiling_errors = None
    if errors is not None and pair_groups:
        ceiling_errors = judge_errors(
            label_type, scale, a, b, pair_groups, resamples=resamples, seed=seed, confidence=confidence
        )
    unmatched = len(predictions.ids(metric)) - matched
    return MetricAgreement(
        metric=metric,
        label_type=label_type,
        scale=scale,
        annotators=labels.annotators(),
        n_items=n_items,
        n_labels=n_labels,
        policy=policy,
        counts=counts,
        judge_scale=judge_scale,
        judge=judge_figures,
        ceiling=ceiling,
        unmatched_predictions=unmatched,
        settings={"resamples": resamples, "seed": seed, "confidence": confidence},
        threshold=fitted,
        higher_is_better=higher_is_better,
        notes=notes,
        errors=errors,
        ceiling_errors=ceiling_errors,
        systems=systems,
        groups=per_group,
        estimate=estimate,
        rows=MeasuredRows(h, views, row_item, stats, tuple(item_ids)),
    )
