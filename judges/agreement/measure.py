"""Agreement of a judge with the human labels of one metric, and the human-human ceiling on the same set."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from judges.errors import InputError
from judges.labels.schema import LabelledSet, LabelType
from judges.agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Figure, figures
from judges.agreement.policy import OutcomeCounts, Policy, apply_policy
from judges.agreement.predictions import Predictions
from judges.agreement.statistics import JudgeScale, choose_statistics, describe_judge


@dataclass(frozen=True)
class MetricAgreement:
    """Everything measured for one metric: judge figures, ceiling figures, and what happened to each item."""

    metric: str
    label_type: LabelType
    scale: tuple[float, float]
    annotators: list[str]
    n_items: int
    n_labels: int
    policy: Policy
    counts: OutcomeCounts
    judge_scale: JudgeScale
    judge: list[Figure]
    ceiling: list[Figure] = field(default_factory=list)  # empty when no item has two annotators
    unmatched_predictions: int = 0
    settings: dict[str, Any] = field(default_factory=dict)

    def figure(self, statistic: str, *, ceiling: bool = False) -> Figure:
        for fig in self.ceiling if ceiling else self.judge:
            if fig.statistic == statistic:
                return fig
        raise KeyError(statistic)

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "label_type": self.label_type.value, "scale": list(self.scale),
                "annotators": self.annotators, "n_items": self.n_items, "n_labels": self.n_labels,
                "policy": self.policy.value, "outcomes": self.counts.to_dict(),
                "unmatched_predictions": self.unmatched_predictions,
                "judge_values": {"on_label_scale": self.judge_scale.on_label_scale,
                                 "binary": self.judge_scale.binary, "threshold": self.judge_scale.threshold},
                "judge": [f.to_dict() for f in self.judge],
                "ceiling": [f.to_dict() for f in self.ceiling], "settings": self.settings}


def _grouped(labels: LabelledSet) -> tuple[list[str], list[list[tuple[str, float]]]]:
    """Item ids in first-seen order, and each item's (annotator, label) pairs."""
    order: dict[str, list[tuple[str, float]]] = {}
    for item in labels.items:
        order.setdefault(item.id, []).append((item.annotator, item.label))
    return list(order), list(order.values())


def minmax_scale(values: np.ndarray, scale: tuple[float, float]) -> np.ndarray:
    """Linearly map values onto [low, high] of the label scale (RAGChecker's normalisation of a difference)."""
    low, high = values.min(), values.max()
    if high == low:
        return values.copy()
    return (values - low) / (high - low) * (scale[1] - scale[0]) + scale[0]


def ceiling_rows(annotations: list[list[tuple[str, float]]]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Every pair of annotators of an item as one row (label of the first annotator id, label of the second)."""
    first: list[float] = []
    second: list[float] = []
    groups: list[np.ndarray] = []
    for labels in annotations:
        pairs = list(combinations(sorted(labels), 2))
        if not pairs:
            continue
        start = len(first)
        first += [a[1] for a, _ in pairs]
        second += [b[1] for _, b in pairs]
        groups.append(np.arange(start, len(first)))
    return np.asarray(first, dtype=float), np.asarray(second, dtype=float), groups


def measure(labels: LabelledSet, predictions: Predictions, *, policy: Policy = Policy.EXCLUDE,
            threshold: float | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
            confidence: float = 0.95) -> MetricAgreement:
    """Agreement for one metric's labels (all items share the metric, label type and scale).

    Each label row (item x annotator) is one observation, the judge's value repeated for every annotator
    of the item; the bootstrap resamples items, so an item's annotators stay together. For preferences
    the judge value is its preference for answer b, min-max scaled to the label scale for the
    correlations, and its sign (unscaled) for the agreement rates.
    """
    metrics = labels.metrics()
    if len(metrics) != 1:
        raise InputError(f"{labels.name} holds several metrics ({', '.join(metrics)}): choose one with --metric")
    metric, first = metrics[0], labels.items[0]
    label_type, scale = first.label_type, first.scale
    ids, annotations = _grouped(labels)
    outcomes = [predictions.get(i, metric) for i in ids]
    graded = [o.score for o in outcomes if o is not None and o.score is not None]
    if not graded:
        raise InputError(f"no graded judge outcome for any {metric} item of {labels.name} "
                         f"(do the prediction ids match the item ids, e.g. {ids[0]!r}?)", path=predictions.source)
    judge_scale = describe_judge(graded, label_type, scale, threshold)
    if label_type is LabelType.PREFERENCE:
        reach = max(abs(v) for v in graded) or 1.0
        judge_range = (-reach, reach)
    elif judge_scale.on_label_scale:
        judge_range = scale
    else:
        judge_range = (min(graded), max(graded))
    positions = [(float(np.mean([lab for _, lab in ann])) - scale[0]) / (scale[1] - scale[0]) for ann in annotations]
    values, counts = apply_policy(outcomes, positions, policy, judge_range)

    human: list[float] = []
    judge: list[float] = []
    groups: list[np.ndarray] = []
    for value, ann in zip(values, annotations, strict=True):
        if value is None:
            continue
        groups.append(np.arange(len(human), len(human) + len(ann)))
        human += [lab for _, lab in ann]
        judge += [value] * len(ann)
    h, j = np.asarray(human, dtype=float), np.asarray(judge, dtype=float)
    views = {"value": j, "scaled": minmax_scale(j, scale) if label_type is LabelType.PREFERENCE and j.size else j,
             "binary": j if judge_scale.threshold is None else (j >= judge_scale.threshold).astype(float)}
    stats = choose_statistics(label_type, scale, judge_scale)
    judge_figures = figures(stats, h, views, groups, resamples=resamples, seed=seed, confidence=confidence)

    a, b, pair_groups = ceiling_rows(annotations)
    ceiling: list[Figure] = []
    if pair_groups:
        human_scale = JudgeScale(on_label_scale=True, binary=label_type is LabelType.BINARY, threshold=None)
        ceiling = figures(choose_statistics(label_type, scale, human_scale), a, {"value": b, "scaled": b, "binary": b},
                          pair_groups, resamples=resamples, seed=seed, confidence=confidence)
    unmatched = len(predictions.ids(metric) - set(ids))
    return MetricAgreement(
        metric=metric, label_type=label_type, scale=scale, annotators=labels.annotators(), n_items=len(ids),
        n_labels=len(labels.items), policy=policy, counts=counts, judge_scale=judge_scale, judge=judge_figures,
        ceiling=ceiling, unmatched_predictions=unmatched,
        settings={"resamples": resamples, "seed": seed, "confidence": confidence})
