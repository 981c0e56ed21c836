"""Two judges on the same labelled items: the paired difference of each statistic (A - B) with a paired-bootstrap
interval (the same resampled items for both), and for correlations Williams' test of two dependent correlations.

Williams' test (Williams 1959; Steiger 1980, eq. 7) compares r12 and r13, the correlations of the human labels with
judges A and B, given r23, the judges' correlation with each other; t has n - 3 degrees of freedom. Graham and
Baldwin (EMNLP 2014) introduced it for MT metrics and FRANK (Pagnoni et al., NAACL 2021) uses it for factuality
metrics. For Spearman it is applied to the rank correlations, as those papers do; n is the number of items.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from judges.agreement.bootstrap import percentile_interval
from judges.agreement.result import MetricAgreement
from judges.agreement.statistics import Statistic
from judges.errors import InputError

BLOCK_VALUES = 4_000_000  # row indices drawn at once (32 MB): never a resamples x items matrix for a large set
WILLIAMS = {"pearson", "spearman"}


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


def resampled_rows(row_item: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray | list[np.ndarray]]:
    """Row indices of each resample of the items (seeded; `row_item` the item index of each row), a bounded block
    of resamples at a time: a matrix when every item has as many rows, else one array per resample."""
    rng = np.random.default_rng(seed)
    sizes = np.bincount(row_item)
    n_items, order = sizes.size, np.argsort(row_item, kind="stable")
    equal = n_items > 0 and sizes.min() == sizes.max()
    members = order.reshape(n_items, -1) if equal else None
    groups = None if equal else np.split(order, np.cumsum(sizes)[:-1])
    block = max(1, BLOCK_VALUES // max(1, row_item.size))
    for start in range(0, resamples, block):
        index = rng.integers(0, n_items, size=(min(block, resamples - start), n_items))
        if members is not None:
            yield members[index].reshape(index.shape[0], -1)
        else:
            assert groups is not None
            yield [np.concatenate([groups[i] for i in row]) for row in index]


def _on_rows(stat: Statistic, human: np.ndarray, judge: np.ndarray, rows: np.ndarray | list[np.ndarray]) -> np.ndarray:
    if stat.batch is not None and isinstance(rows, np.ndarray):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(stat.batch(human[rows], judge[rows]), dtype=float)
    return np.array([stat(human[r], judge[r]) for r in rows], dtype=float)


def _judges_correlation(name: str, a: np.ndarray, b: np.ndarray) -> float:
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = stats.pearsonr(a, b) if name == "pearson" else stats.spearmanr(a, b)
    return float(found[0])


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
    n_items = int(rows_a.row_item.max()) + 1 if rows_a.row_item.size else 0
    values = {s.name: (s(rows_a.human, rows_a.views[s.view]), t(rows_b.human, rows_b.views[t.view])) for s, t in pairs}
    drawn: dict[str, list[np.ndarray]] = {s.name: [] for s, _ in pairs}
    for rows in resampled_rows(rows_a.row_item, resamples, seed):
        for s, t in pairs:
            one = _on_rows(s, rows_a.human, rows_a.views[s.view], rows)
            drawn[s.name].append(one - _on_rows(t, rows_b.human, rows_b.views[t.view], rows))
    out = []
    for s, t in pairs:
        value_a, value_b = values[s.name]
        if not (np.isfinite(value_a) and np.isfinite(value_b)):
            out.append(
                PairedDifference(s.name, _finite(value_a), _finite(value_b), None, None, n_items, note="undefined")
            )
            continue
        ci, undefined = percentile_interval(np.concatenate(drawn[s.name]), confidence)
        williams: tuple[float | None, float | None] = (None, None)
        if s.name in WILLIAMS and n_items > 3:
            r23 = _judges_correlation(s.name, rows_a.views[s.view], rows_b.views[t.view])
            t_value, p_value = williams_test(value_a, value_b, r23, n_items) if np.isfinite(r23) else (np.nan, np.nan)
            williams = (_finite(t_value), _finite(p_value))
        note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        out.append(PairedDifference(s.name, value_a, value_b, value_a - value_b, ci, n_items, *williams, note=note))
    return out


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
