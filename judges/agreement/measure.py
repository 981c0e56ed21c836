"""Agreement of a judge with the human labels of one metric, and the human-human ceiling on the same set."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.bootstrap import Figure, ItemRows, figures
from judges.agreement.confusion import JudgeErrors, item_weights, judge_errors
from judges.agreement.corrected_estimate import measure_estimate
from judges.agreement.groups import measure_groups
from judges.agreement.label_rows import ceiling_rows, grouped, mean_labels, minmax_scale, one_metric, orient_scores
from judges.agreement.policy import OutcomeCounts, Policy, apply_policy
from judges.agreement.predictions import Predictions
from judges.agreement.result import MeasuredRows, MetricAgreement
from judges.agreement.statistic_index import choose_statistics
from judges.agreement.statistics import JudgeScale, describe_judge
from judges.agreement.systems import measure_systems
from judges.agreement.threshold import Calibration, FittedThreshold
from judges.agreement.threshold_fit import Matched, choose_threshold, cross_fit
from judges.errors import InputError
from judges.labels.schema import LabelledSet, LabelType


@dataclass
class _Scored:
    """Each item's judge value after the policy (None: left out), the kept items' indices, and the graded scores."""

    values: np.ndarray  # NaN: left out
    counts: OutcomeCounts
    kept: np.ndarray
    graded: np.ndarray


@dataclass
class _Rows:
    """One row per (item, annotator) of the kept items, as arrays, and the annotator pairs for the ceiling."""

    h: np.ndarray
    views: dict[str, np.ndarray]
    groups: ItemRows
    row_weights: np.ndarray | None
    item_ids: list[str]
    n_items: int
    n_labels: int
    counts: OutcomeCounts
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_groups: ItemRows


def measure(
    labels: LabelledSet,
    predictions: Predictions,
    settings: AgreementSettings | None = None,
    *,
    calibration: Calibration | None = None,
    intervals: Collection[str] | None = None,
    counts_only: bool = False,
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

    `settings` (default: `judgelab agreement`'s) give the failure policy, the judge's direction and given cut, the
    bootstrap's resamples, seed and level; `calibration` where a cut is fitted (default: the settings' fraction or folds).

    `intervals` (a leaderboard's row shows one figure's interval) names the plain statistics whose bootstrap
    interval is wanted; the others then get their value only, and the judge's errors and the corrected estimate
    (intervals throughout) are left out. None: everything. `counts_only`: no bootstrap at all, the label rows and
    each figure's value only (no interval, errors, systems, groups, estimate): `label serve --until-decided`'s.
    """
    settings = settings or AgreementSettings()
    policy, threshold, higher_is_better = Policy(settings.policy), settings.threshold, settings.higher_is_better
    metric, label_type, scale = one_metric(labels)
    matched = _match(labels, predictions, metric, scale, higher_is_better)
    calibration = calibration or Calibration(
        fraction=settings.calibration_fraction, folds=settings.folds, seed=settings.seed
    )
    notes: list[str] = (
        [] if higher_is_better else ["the judge is lower-is-better: its scores are turned around before measuring"]
    )
    chosen = choose_threshold(matched, label_type, threshold, calibration, predictions, notes)
    scored = _score_items(matched, label_type, scale, policy, predictions)
    cuts = None
    if chosen.cross_fit and scored.kept.size:
        cuts = cross_fit(matched, scored.values, scored.kept, calibration, chosen, notes)
    judge_scale = describe_judge(scored.graded, label_type, scale, chosen.cut)
    rows = _judge_rows(labels, matched, scored, cuts, judge_scale, label_type, scale)
    unmatched = predictions.count(metric) - matched.n_matched
    answer = _Answer(policy, chosen.fitted, higher_is_better, unmatched, matched.turn, cuts is not None)
    # only arrays go on to the bootstrap: the per-item Python objects (hundreds of MB at a million items) go now
    del matched, scored
    wanted = () if counts_only else intervals
    measured = _Measured(
        labels, predictions, (metric, label_type, scale), rows, judge_scale, notes, wanted, counts_only
    )
    bootstrap: dict[str, Any] = settings.model_dump(include={"resamples", "seed", "confidence"})
    return _agreement(measured, answer, bootstrap)


@dataclass
class _Answer:
    """How the judge was read: the failure policy, the fitted threshold, its direction, the unmatched predictions."""

    policy: Policy
    threshold: FittedThreshold | None
    higher_is_better: bool
    unmatched: int
    turn: Callable[[float], float]
    has_cuts: bool  # cross-fitted cuts give the binary view


@dataclass
class _Measured:
    """What the figures stages read: the labels, the judge's predictions and rows, and the notes they add to."""

    labels: LabelledSet
    predictions: Predictions
    kind: tuple[str, LabelType, tuple[float, float]]  # metric, label type, scale
    rows: _Rows
    judge_scale: JudgeScale
    notes: list[str]
    intervals: Collection[str] | None  # None: every figure's interval, the errors and the estimate
    counts_only: bool = False  # no bootstrap: no systems nor groups either


def _agreement(measured: _Measured, answer: _Answer, bootstrap: dict[str, Any]) -> MetricAgreement:
    """The bootstrap, systems/groups, estimates, errors and ceiling stages, as one result."""
    labels, predictions, rows, judge_scale = measured.labels, measured.predictions, measured.rows, measured.judge_scale
    notes = measured.notes
    metric, label_type, scale = measured.kind
    stats = choose_statistics(label_type, scale, judge_scale)
    judge_figures = figures(stats, rows.h, rows.views, rows.groups, **bootstrap, intervals=measured.intervals)
    has_cut = answer.has_cuts or judge_scale.binary or judge_scale.threshold is not None
    row_item = rows.groups.row_item
    systems, per_group = None, None
    if not measured.counts_only:
        systems = measure_systems(
            labels, rows.item_ids, rows.h, rows.views, row_item, label_type, has_cut, notes, **bootstrap
        )
        per_group = measure_groups(
            labels, rows.item_ids, rows.h, rows.views["value"], row_item, label_type, notes, **bootstrap
        )
    everything = measured.intervals is None
    estimate = measure_estimate(labels, predictions, answer.turn, judge_scale, **bootstrap) if everything else None
    errors = _judge_errors(rows, judge_scale, label_type, scale, bootstrap) if everything else None
    ceiling, ceiling_errors = _ceiling(rows, errors is not None, label_type, scale, bootstrap, measured.intervals)
    return MetricAgreement(
        metric=metric,
        label_type=label_type,
        scale=scale,
        annotators=labels.annotators(),
        n_items=rows.n_items,
        n_labels=rows.n_labels,
        policy=answer.policy,
        counts=rows.counts,
        judge_scale=judge_scale,
        judge=judge_figures,
        ceiling=ceiling,
        unmatched_predictions=answer.unmatched,
        settings=dict(bootstrap),
        threshold=answer.threshold,
        higher_is_better=answer.higher_is_better,
        notes=notes,
        errors=errors,
        ceiling_errors=ceiling_errors,
        systems=systems,
        groups=per_group,
        estimate=estimate,
        rows=MeasuredRows(rows.h, rows.views, row_item, stats, tuple(rows.item_ids)),
    )


def _match(
    labels: LabelledSet, predictions: Predictions, metric: str, scale: tuple[float, float], higher_is_better: bool
) -> Matched:
    """The labelled items with the judge's outcome of each, turned to higher is better; at least one graded."""
    ids, annotations = grouped(labels)
    outcomes = predictions.outcome_columns(ids, metric)
    outcomes.scores, turn = orient_scores(outcomes.scores, scale, higher_is_better)
    if not outcomes.scored().size:
        raise InputError(
            f"no graded judge outcome for any {metric} item of {labels.name} "
            f"(do the prediction ids match the item ids, e.g. {ids[0]!r}?)",
            path=predictions.source,
        )
    single = None if (one := labels.one_label_each) is None else np.frombuffer(one, dtype=float)
    return Matched(metric, ids, annotations, outcomes, turn, higher_is_better, outcomes.n_matched(), single)


def _score_items(
    matched: Matched, label_type: LabelType, scale: tuple[float, float], policy: Policy, predictions: Predictions
) -> _Scored:
    """The policy stage: each item's judge value, a failure counted as the policy says."""
    annotations = matched.annotations
    graded = matched.outcomes.scored()
    if not graded.size:
        raise InputError(
            f"no graded judge outcome for the {matched.metric} items left to report on", path=predictions.source
        )
    if label_type is LabelType.PREFERENCE:
        reach = float(np.abs(graded).max()) or 1.0
        judge_range = (-reach, reach)
    elif describe_judge(graded, label_type, scale).on_label_scale:
        judge_range = scale
    else:
        judge_range = (float(graded.min()), float(graded.max()))
    means = mean_labels(annotations) if matched.single is None else matched.single
    positions = (means - scale[0]) / (scale[1] - scale[0])
    values, counts = apply_policy(matched.outcomes, positions, policy, judge_range)
    kept = np.flatnonzero(~np.isnan(values))
    return _Scored(values, counts, kept, graded)


def _judge_rows(
    labels: LabelledSet,
    matched: Matched,
    scored: _Scored,
    cuts: np.ndarray | None,
    judge_scale: JudgeScale,
    label_type: LabelType,
    scale: tuple[float, float],
) -> _Rows:
    """The arrays stage: one row per (item, annotator), item by item: arrays, not per-row Python objects."""
    ids, annotations, values, kept = matched.ids, matched.annotations, scored.values, scored.kept
    every = kept.size == len(annotations)  # no item left out: whole lists, not a lookup per kept item
    if matched.single is not None:  # one label per item: its column, no pass over the pairs
        h = matched.single.copy() if every else matched.single[kept]
        sizes = np.ones(h.size, dtype=np.int64)
    else:
        taken = annotations if every else [annotations[n] for n in kept]
        sizes = np.fromiter(map(len, taken), dtype=np.int64, count=len(taken))
        h = np.fromiter((lab for ann in taken for _, lab in ann), dtype=float, count=int(sizes.sum()))
    groups = ItemRows.repeated(sizes)
    j = np.repeat(values if every else values[kept], sizes)
    weights = item_weights(labels)
    row_weights = None if not weights else np.repeat([weights[ids[n]] for n in kept], sizes).astype(float)
    if cuts is not None:
        binary_view = np.repeat(np.asarray(cuts, dtype=float), sizes)
    else:
        binary_view = j if judge_scale.threshold is None else (j >= judge_scale.threshold).astype(float)
    a, b, pair_groups = ceiling_rows(annotations if matched.single is None else [])  # one label each: no pairs
    views = {
        "value": j,
        "scaled": minmax_scale(j, scale) if label_type is LabelType.PREFERENCE and j.size else j,
        "binary": binary_view,
    }
    item_ids = list(ids) if every else [ids[n] for n in kept]
    n_items, n_labels = len(ids), len(ids) if matched.single is not None else sum(map(len, annotations))
    return _Rows(h, views, groups, row_weights, item_ids, n_items, n_labels, scored.counts, a, b, pair_groups)


def _judge_errors(
    rows: _Rows, judge_scale: JudgeScale, label_type: LabelType, scale: tuple[float, float], bootstrap: dict[str, Any]
) -> JudgeErrors | None:
    """The errors stage: the judge's confusion on the label levels, when its values sit on them (or are cut)."""
    on_levels = rows.views["binary"] if label_type is LabelType.BINARY else rows.views["value"]
    if (label_type is LabelType.BINARY and (judge_scale.binary or judge_scale.threshold is not None)) or (
        label_type is LabelType.ORDINAL and judge_scale.on_label_scale
    ):
        return judge_errors(
            label_type, scale, rows.h, on_levels, rows.groups, row_weights=rows.row_weights, **bootstrap
        )
    return None


def _ceiling(
    rows: _Rows,
    with_errors: bool,
    label_type: LabelType,
    scale: tuple[float, float],
    bootstrap: dict[str, Any],
    intervals: Collection[str] | None,
) -> tuple[list[Figure], JudgeErrors | None]:
    """The ceiling stage: the human-human figures on annotator pairs, and their errors when the judge has some."""
    if not rows.pair_groups:
        return [], None
    human_scale = JudgeScale(on_label_scale=True, binary=label_type is LabelType.BINARY, threshold=None)
    a, b = rows.pair_a, rows.pair_b
    stats = choose_statistics(label_type, scale, human_scale)
    same = {"value": b, "scaled": b, "binary": b}
    ceiling = figures(stats, a, same, rows.pair_groups, **bootstrap, intervals=intervals)
    ceiling_errors = None
    if with_errors:
        ceiling_errors = judge_errors(label_type, scale, a, b, rows.pair_groups, **bootstrap)
    return ceiling, ceiling_errors
