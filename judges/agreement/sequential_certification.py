"""Certifying as labels arrive: each proportion's confidence sequence checked after every label, the first decision kept."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judges.agreement import confidence_sequence as cs
from judges.errors import ConfigError

CONSTRUCTION = (
    "beta-binomial mixture confidence sequence, uniform Beta(1, 1) mixing (Howard, Ramdas, McAuliffe and Sekhon "
    "2021, Ann. Statist.)"
)
# the proportions a sequence bounds: their name in the record, and which label rows count (human 1, human 0, all)
PROPORTIONS = {
    "sensitivity": ("sensitivity (tpr)", 1),
    "recall": ("sensitivity (tpr)", 1),
    "tpr": ("sensitivity (tpr)", 1),
    "specificity": ("specificity (tnr)", 0),
    "tnr": ("specificity (tnr)", 0),
    "accuracy": ("accuracy", None),
    "agreement": ("agreement", None),
}
CERTIFIED, FAILED, UNDECIDED = "certified", "not certified", "undecided"


def proportion_bars(min_recall: float | None, bars: dict[str, float]) -> dict[str, tuple[float, int | None]]:
    """Each bar a sequence can bound, by its record name: --min-recall R bars both classes' recall at R."""
    out: dict[str, tuple[float, int | None]] = {}
    if min_recall is not None:
        out |= {"sensitivity (tpr)": (min_recall, 1), "specificity (tnr)": (min_recall, 0)}
    for name, bar in bars.items():
        if name not in PROPORTIONS:
            known = ", ".join(PROPORTIONS)
            raise ConfigError(f"--min {name}=...: --sequential bounds proportions only, as --plan plans ({known})")
        label, rows = PROPORTIONS[name]
        out[label] = (bar, rows)
    return out


@dataclass(frozen=True)
class SequentialCheck:
    """One bar followed label by label: its state, where it was first decided, and its bounds there."""

    statistic: str
    bar: float
    state: str
    value: float | None  # the rate on every label seen
    n: int  # the rows of this proportion among every label seen
    decided_at: int | None  # labels (rows in order) at which the bar was first decided
    n_at_decision: int | None
    lower_bound: float  # at the decision, or on every label seen while undecided
    upper_bound: float

    def describe(self) -> str:
        where = "" if self.decided_at is None else f" at {self.decided_at} labels ({self.n_at_decision} of its rows)"
        value = "n/a" if self.value is None else f"{self.value:.3f}"
        return (
            f"{self.state.upper()} {self.statistic} >= {self.bar:g}{where}: anytime 95% bounds "
            f"[{self.lower_bound:.3f}, {self.upper_bound:.3f}]; observed {value} on {self.n}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "bar": self.bar,
            "state": self.state,
            "passed": self.state == CERTIFIED,
            "value": self.value,
            "n": self.n,
            "decided_at": self.decided_at,
            "n_at_decision": self.n_at_decision,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "method": CONSTRUCTION,
        }


def first(flags: Any) -> int | None:
    """The index of the first true flag, or None."""
    import numpy as np  # defers numpy

    where = np.flatnonzero(flags)
    return int(where[0]) if where.size else None


def follow(name: str, bar: float, counted: Any, hits: Any, alpha: float = cs.ALPHA) -> SequentialCheck:
    """One bar over the label rows in order: `counted` marks the rows of its proportion, `hits` the judge's right ones."""
    import numpy as np  # defers numpy

    t = np.cumsum(counted)
    s = np.cumsum(hits & counted)
    ruled_out = (t > 0) & cs.excludes(s, t, bar, alpha)
    rate = np.divide(s, t, out=np.full(t.shape, np.nan), where=t > 0)
    certified, failed = first(ruled_out & (rate > bar)), first(ruled_out & (rate < bar))
    decided = min((i for i in (certified, failed) if i is not None), default=None)
    look = len(t) - 1 if decided is None else decided
    k, n = (int(s[look]), int(t[look])) if len(t) else (0, 0)
    state = UNDECIDED if decided is None else (CERTIFIED if decided == certified else FAILED)
    total, right = (int(t[-1]), int(s[-1])) if len(t) else (0, 0)
    return SequentialCheck(
        statistic=name,
        bar=bar,
        state=state,
        value=right / total if total else None,
        n=total,
        decided_at=None if decided is None else decided + 1,
        n_at_decision=None if decided is None else n,
        lower_bound=cs.lower_bound(k, n, alpha),
        upper_bound=cs.upper_bound(k, n, alpha) if n else 1.0,
    )


@dataclass(frozen=True)
class SequentialResult:
    """Every bar's sequence, and the certificate's: certified once every bar is, not certified once one fails."""

    checks: list[SequentialCheck]
    labels_seen: int

    @property
    def decided_at(self) -> int | None:
        fails = [c.decided_at for c in self.checks if c.state == FAILED and c.decided_at is not None]
        passes = [c.decided_at for c in self.checks if c.state == CERTIFIED and c.decided_at is not None]
        all_passed = max(passes) if len(passes) == len(self.checks) else None
        return min([*fails, *([all_passed] if all_passed is not None else [])], default=None)

    @property
    def state(self) -> str:
        at = self.decided_at
        if at is None:
            return UNDECIDED
        return FAILED if any(c.state == FAILED and c.decided_at == at for c in self.checks) else CERTIFIED

    def status(self) -> str:
        """One line: the certificate's state, where it was decided, and each bar's bound (the labelling page's)."""
        at = self.decided_at
        head = f"{self.state} after {self.labels_seen} labels" if at is None else f"{self.state} at {at} labels"
        return f"{head}: " + "; ".join(_bar_status(check) for check in self.checks)


def _bar_status(check: SequentialCheck) -> str:
    """A bar's part of the status line: its lower bound against the bar (its upper bound once it failed)."""
    if check.state == FAILED:
        return f"{check.statistic} upper bound {check.upper_bound:.2f} < {check.bar:.2f} at {check.decided_at}"
    if check.state == CERTIFIED:
        return f"{check.statistic} bound {check.lower_bound:.2f} >= {check.bar:.2f} at {check.decided_at}"
    return f"{check.statistic} bound {check.lower_bound:.2f} < {check.bar:.2f}"


def certify_in_order(
    human: Sequence[float] | Any, judge: Sequence[float] | Any, bars: dict[str, tuple[float, int | None]]
) -> SequentialResult:
    """Every bar over the label rows (human 0/1 label, the judge's 0/1 verdict) in the order given."""
    import numpy as np  # defers numpy

    h = np.asarray(human, dtype=float)
    j = np.asarray(judge, dtype=float)
    right = j == h
    checks = []
    for name, (bar, rows) in bars.items():
        counted = np.ones(h.shape, dtype=bool) if rows is None else h == rows
        checks.append(follow(name, bar, counted, right))
    return SequentialResult(checks, int(h.size))


def order_sha256(records: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of the label rows in their order (id, metric, annotator, label): a prefix's fingerprint."""
    keys = ("id", "metric", "annotator", "label")
    text = "\n".join(json.dumps([r.get(k) for k in keys]) for r in records)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def extended_from(records: Sequence[dict[str, Any]], earlier: Sequence[dict[str, Any]]) -> int | None:
    """The size of an earlier validation's labels that these labels extend (the same first rows, more after them)."""
    for before in earlier:
        order = before.get("labels_order")
        if not isinstance(order, dict) or not isinstance(order.get("rows"), int):
            continue
        rows = order["rows"]
        if 0 < rows < len(records) and order.get("sha256") == order_sha256(records[:rows]):
            return rows
    return None
