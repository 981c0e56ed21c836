"""Two judges on the same labelled items: the paired difference of each statistic (A - B) with a paired-bootstrap
interval (the same resampled items for both), and for correlations Williams' test of two dependent correlations.

Williams' test (Williams 1959; Steiger 1980, eq. 7) compares r12 and r13, the correlations of the human labels with
judges A and B, given r23, the judges' correlation with each other; t has n - 3 degrees of freedom. Graham and
Baldwin (EMNLP 2014) introduced it for MT metrics and FRANK (Pagnoni et al., NAACL 2021) uses it for factuality
metrics. For Spearman it is applied to the rank correlations, as those papers do; n is the number of items.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from judges.agreement.bootstrap import ItemRows, paired_differences, percentile_interval, resampler
from judges.agreement.result import MetricAgreement
from judges.agreement.statistic_index import INDEX, STATISTICS
from judges.errors import InputError

WILLIAMS = {d.name for d in STATISTICS if d.correlation}  # the dependent correlations Williams' test compares


@dataclass(frozen=True)
class PairedDifference:
    """One statistic of judges A and B on the same items, their difference A - B, and how sure it is."""

    statistic: str
    a: float | None
    b: float | None
    difference: float | None
    ci: tuple[float, float] | None
    n_items: int
    williams_t: float | None = None
    williams_p: float | None = None  # two-sided
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "ci": None if self.ci is None else list(self.ci),
            "n_items": self.n_items,
            "williams_t": self.williams_t,
            "williams_p": self.williams_p,
            "note": self.note,
        }


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' t for r12 - r13 (variable 1 shared, r23 the other two's correlation) and its two-sided p-value."""
    from scipy import stats

    determinant = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    mean = (r12 + r13) / 2
    denominator = np.sqrt(max(0.0, 2 * (n - 1) / (n - 3) * determinant + mean**2 * (1 - r23) ** 3))
    if denominator == 0:  # the two judges agree perfectly with each other: nothing to test
        return float("nan"), float("nan")
    t = float((r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / denominator)
    return t, float(2 * stats.t.sf(abs(t), n - 3))


def _judges_correlation(name: str, a: np.ndarray, b: np.ndarray) -> float:
    """The two judges' own correlation, by the statistic's function."""
    correlate = INDEX[name].function
    assert correlate is not None, name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(correlate(a, b))


def compare(
    a: MetricAgreement, b: MetricAgreement, *, resamples: int, seed: int, confidence: float = 0.95
) -> list[PairedDifference]:
    """The paired differences of every statistic both judges have, measured on the same items (same label rows)."""
    if a.rows is None or b.rows is None:
        raise InputError("both judges must be measured here to be compared")
    rows_a, rows_b = a.rows, b.rows
    if not (np.array_equal(rows_a.row_item, rows_b.row_item) and np.array_equal(rows_a.human, rows_b.human)):
        raise InputError("the two judges were not measured on the same items")
    stats_b = {s.name: s for s in rows_b.statistics if s.reason is None}
    pairs = [(s, stats_b[s.name]) for s in rows_a.statistics if s.reason is None and s.name in stats_b]
    items = ItemRows(rows_a.row_item, int(rows_a.row_item.max()) + 1 if rows_a.row_item.size else 0)
    n_items = items.n_items
    values = {s.name: (s(rows_a.human, rows_a.views[s.view]), t(rows_b.human, rows_b.views[t.view])) for s, t in pairs}
    too_many = {s.name for s, _ in pairs if s.bootstrap_items is not None and n_items > s.bootstrap_items}
    resampled = {
        s.name: (
            resampler(s, rows_a.human, rows_a.views[s.view], items),
            resampler(t, rows_b.human, rows_b.views[t.view], items),
        )
        for s, t in pairs
        if s.name not in too_many
    }
    drawn = paired_differences(resampled, items, resamples, seed)
    out = []
    for s, t in pairs:
        value_a, value_b = values[s.name]
        if not (np.isfinite(value_a) and np.isfinite(value_b)):
            out.append(
                PairedDifference(s.name, _finite(value_a), _finite(value_b), None, None, n_items, note="undefined")
            )
            continue
        ci, undefined = (None, 0) if s.name in too_many else percentile_interval(drawn[s.name], confidence)
        williams: tuple[float | None, float | None] = (None, None)
        if s.name in WILLIAMS and n_items > 3:
            r23 = _judges_correlation(s.name, rows_a.views[s.view], rows_b.views[t.view])
            t_value, p_value = williams_test(value_a, value_b, r23, n_items) if np.isfinite(r23) else (np.nan, np.nan)
            williams = (_finite(t_value), _finite(p_value))
        note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        if s.name in too_many:
            note = f"no paired interval above {s.bootstrap_items:,} items (the bootstrap of this statistic is too slow)"
        out.append(PairedDifference(s.name, value_a, value_b, value_a - value_b, ci, n_items, *williams, note=note))
    return out


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
