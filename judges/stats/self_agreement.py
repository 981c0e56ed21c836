"""A judge's agreement with itself over K draws of each item: how often its verdict changes, and Krippendorff's
alpha with the draws as coders (the closed forms of `alpha_forms.py`, each pair of one item's draws a row)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from judges.records.draws import MetricConsistency
from judges.stats.alpha_forms import alpha_on_levels, interval_alpha
from judges.types import Verdict, VerdictState

MAX_ORDINAL_LEVELS = 10  # grades on more distinct values than this are compared as interval data


def draw_consistency(items: Sequence[Sequence[Verdict]]) -> MetricConsistency:
    """Per item its draws' verdicts: the items with two or more that did not fail, the share of them whose verdict
    (grade or null) is not the same in every draw, and the draws' alpha over the grades (`self_alpha`)."""
    answered = [[v for v in draws if not v.is_failure] for draws in items]
    compared = [draws for draws in answered if len(draws) >= 2]
    changed = sum(len({(v.state, v.grade) for v in draws}) > 1 for draws in compared)
    grades = [[v.grade for v in draws if v.state is VerdictState.GRADE and v.grade is not None] for draws in answered]
    return MetricConsistency(len(compared), changed / len(compared) if compared else None, self_alpha(grades))


def self_alpha(items: Sequence[Sequence[float]]) -> float | None:
    """Krippendorff's alpha of an item's grades across draws (the draws as coders, a missing grade missing data).

    An item graded m >= 2 times gives its m (m - 1) / 2 pairs of grades, each weighted 1 / (m - 1), so that the two
    coders' coincidence matrix (each pair both ways) is Krippendorff's; ordinal on up to 10 levels, else interval.
    None when fewer than two grades pair up, or every pairable grade is the same value.
    """
    first: list[float] = []
    second: list[float] = []
    weights: list[float] = []
    for grades in (g for g in items if len(g) >= 2):
        for a, b in itertools.combinations(grades, 2):
            first.append(a)
            second.append(b)
            weights.append(1 / (len(grades) - 1))
    levels = sorted({*first, *second})
    if len(levels) < 2:
        return None
    human, judge = np.asarray(first), np.asarray(second)
    prepared = (
        alpha_on_levels(levels, ordinal=True)(human, judge)
        if len(levels) <= MAX_ORDINAL_LEVELS
        else interval_alpha(human, judge)
    )
    value = float(prepared(np.asarray([weights]))[0])
    return None if math.isnan(value) else value
