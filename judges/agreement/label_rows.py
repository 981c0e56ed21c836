"""Labels and judge grades shaped for measuring: items with their annotators' labels, annotator pairs for the
ceiling, majority labels, a lower-is-better judge turned around, and a Youden cut fitted on chosen items."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from judges.agreement.bootstrap import ItemRows
from judges.agreement.threshold import youden_threshold
from judges.errors import InputError
from judges.labels.schema import Annotation, LabelledSet, LabelType, OneLabelEach


def grouped(labels: LabelledSet) -> tuple[list[str], Sequence[Annotation]]:
    """Item ids in first-seen order (a new list: the caller's to change), and each item's (annotator, label) pairs
    (made when read for a set of one label per item)."""
    ids, annotations = labels.by_item
    return list(ids), annotations if isinstance(annotations, OneLabelEach) else list(annotations)


def minmax_scale(values: np.ndarray, scale: tuple[float, float]) -> np.ndarray:
    """Linearly map values onto [low, high] of the label scale (RAGChecker's normalisation of a difference)."""
    low, high = values.min(), values.max()
    if high == low:
        return values.copy()
    return (values - low) / (high - low) * (scale[1] - scale[0]) + scale[0]


def ceiling_rows(annotations: Sequence[Annotation]) -> tuple[np.ndarray, np.ndarray, ItemRows]:
    """Every pair of annotators of an item as one row (label of the first annotator id, label of the second),
    and which item each row belongs to (only items with two annotators or more)."""
    first: list[float] = []
    second: list[float] = []
    sizes: list[int] = []
    for labels in annotations:
        if len(labels) < 2:
            continue
        pairs = list(combinations(sorted(labels), 2))
        first += [a[1] for a, _ in pairs]
        second += [b[1] for _, b in pairs]
        sizes.append(len(pairs))
    rows = ItemRows.repeated(np.asarray(sizes, dtype=np.int64))
    return np.asarray(first, dtype=float), np.asarray(second, dtype=float), rows


def orient(outcomes: list[Any], scale: tuple[float, float], higher_is_better: bool) -> tuple[list[Any], Any]:
    """Turn a lower-is-better judge around: reflected on the label scale when every grade lies on it, else negated.

    Returns the turned outcomes and the turning function (its own inverse), the identity for higher-is-better.
    """
    if higher_is_better:
        return outcomes, lambda v: v
    graded = [o.score for o in outcomes if o is not None and o.score is not None]
    on_scale = all(scale[0] <= v <= scale[1] for v in graded)

    def turn(value: float) -> float:
        return scale[0] + scale[1] - value if on_scale else -value

    return [o if o is None or o.score is None else replace(o, score=turn(o.score)) for o in outcomes], turn


def orient_scores(
    scores: np.ndarray, scale: tuple[float, float], higher_is_better: bool
) -> tuple[np.ndarray, Callable[[float], float]]:
    """`orient` of a column of scores (NaN: none): the turned column and the turning function."""
    if higher_is_better:
        return scores, lambda v: v
    graded = scores[~np.isnan(scores)]
    on_scale = bool(np.all((graded >= scale[0]) & (graded <= scale[1])))

    def turn(value: float) -> float:
        return scale[0] + scale[1] - value if on_scale else -value

    return (scale[0] + scale[1]) - scores if on_scale else -scores, turn


def mean_labels(annotations: Sequence[Annotation]) -> np.ndarray:
    """Each item's mean label (items of one label each: the label itself, without a sum per item)."""
    if set(map(len, annotations)) == {1}:
        return np.fromiter((ann[0][1] for ann in annotations), dtype=float, count=len(annotations))
    return np.fromiter((sum(lab for _, lab in ann) / len(ann) for ann in annotations), float, len(annotations))


def majority_labels(annotations: Sequence[Annotation]) -> np.ndarray:
    """One binary label per item: the majority of its annotators (a tie counts as 1)."""
    return np.array([float(sum(lab for _, lab in ann) >= 0.5 * len(ann)) for ann in annotations])


def fit_on(ids: list[str], labels: np.ndarray, scores: dict[str, float]) -> tuple[float | None, int]:
    """Youden's threshold on the given items that have a graded score, and how many did."""
    keep = [n for n, i in enumerate(ids) if i in scores]
    cut = youden_threshold(labels[keep], np.array([scores[ids[n]] for n in keep])) if keep else None
    return cut, len(keep)


def one_metric(labels: LabelledSet) -> tuple[str, LabelType, tuple[float, float]]:
    """The one metric of the labels, its label type and scale; several metrics: a one-line InputError."""
    metrics = labels.metrics()
    if len(metrics) != 1:
        raise InputError(f"{labels.name} holds several metrics ({', '.join(metrics)}): choose one with --metric")
    first = labels.items[0]
    return metrics[0], first.label_type, first.scale
