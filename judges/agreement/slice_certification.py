"""Certifying every slice at once: an intersection-union test, each slice's bounds at the stated level (Berger 1982)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

CERTIFIED, FAILED, UNDECIDED = "certified", "not certified", "undecided"
TEST = (
    "intersection-union test (Berger 1982, Technometrics 24(4)): certified only when every slice's bound reaches "
    "its bar, each slice at the stated one-sided 95% level; the level holds for the whole without a multiplicity "
    "correction (a wrong certificate needs a wrong certificate on some slice, which has at most 5%)"
)


@dataclass(frozen=True)
class SliceOutcome:
    """One slice's certificate: its labels per class, each bar's check, its state and why."""

    name: str
    counts: dict[str, int]
    state: str
    reason: str | None
    checks: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # each bar as the report prints it

    def counts_text(self) -> str:
        return ", ".join(f"{n} {'items' if k == 'items' else f'labelled {k}'}" for k, n in self.counts.items())

    def headline(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"{self.state.upper()} slice {self.name} ({self.counts_text()}){why}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "slice": self.name,
            "counts": self.counts,
            "state": self.state,
            "reason": self.reason,
            "bars": [
                {key: check.get(key) for key in ("statistic", "bar", "value", "lower_bound", "n", "passed")}
                | {"state": check.get("state") or _state(check)}
                | ({"decided_at": check["decided_at"]} if "decided_at" in check else {})
                for check in self.checks
            ],
        }


def _state(check: dict[str, Any]) -> str:
    """A fixed-n check's state from its record."""
    return CERTIFIED if check["passed"] else (UNDECIDED if check.get("undecided") else FAILED)


def fixed_state(checks: Sequence[Any]) -> tuple[str, str | None]:
    """A slice's state from its fixed-n checks (`BoundCheck`s), and the reason it is not certified."""
    missed = [c for c in checks if not c.passed and c.undecided is None]
    if missed:
        return FAILED, "; ".join(_missed(c) for c in missed)
    open_ = [c for c in checks if c.undecided is not None]
    if open_:
        return UNDECIDED, "; ".join(f"{c.statistic} >= {c.bar:g}: {c.undecided}" for c in open_)
    return CERTIFIED, None


def _missed(check: Any) -> str:
    if check.lower_bound is None:
        return f"{check.statistic} >= {check.bar:g}: undefined"
    return f"{check.statistic} bound {check.lower_bound:.3f} < {check.bar:g} (observed {check.value:.3f} on {check.n})"


def sequential_state(checks: Sequence[Any]) -> tuple[str, str | None]:
    """A slice's state from its sequential checks (`SequentialCheck`s): not certified once a bar fails, certified once
    every bar is, else undecided."""
    failed = [c for c in checks if c.state == FAILED]
    if failed:
        return FAILED, "; ".join(
            f"{c.statistic} upper bound {c.upper_bound:.3f} < {c.bar:g} at {c.decided_at} labels" for c in failed
        )
    open_ = [c for c in checks if c.state != CERTIFIED]
    if open_:
        return UNDECIDED, "; ".join(
            f"{c.statistic} >= {c.bar:g}: anytime bounds [{c.lower_bound:.3f}, {c.upper_bound:.3f}] on {c.n}"
            for c in open_
        )
    return CERTIFIED, None


def overall(outcomes: Sequence[SliceOutcome]) -> str:
    """The certificate over every slice: not certified when a slice is not, certified when every slice is, else
    undecided."""
    states = {outcome.state for outcome in outcomes}
    if FAILED in states:
        return FAILED
    return CERTIFIED if states == {CERTIFIED} else UNDECIDED


def failing_first(outcomes: Sequence[SliceOutcome]) -> list[SliceOutcome]:
    """Slices not certified, then undecided, then certified (each group in the labels' order)."""
    rank = {FAILED: 0, UNDECIDED: 1, CERTIFIED: 2}
    return sorted(outcomes, key=lambda outcome: rank[outcome.state])


def slices_record(field_name: str, outcomes: Sequence[SliceOutcome], pooled: dict[str, Any] | None) -> dict[str, Any]:
    """certification.json's `slices` block: the field, the test, the verdict over slices, each slice, the pooled
    figure beside them (not the certificate)."""
    return {
        "field": field_name,
        "test": TEST,
        "verdict": overall(outcomes),
        "not_certified": [o.name for o in outcomes if o.state == FAILED],
        "undecided": [o.name for o in outcomes if o.state == UNDECIDED],
        "slices": [o.to_dict() for o in failing_first(outcomes)],
        "pooled": pooled,
    }


def verdict_line(field_name: str, outcomes: Sequence[SliceOutcome], written: str) -> str:
    """The last line: the verdict over every slice, naming the slices that fail or are undecided."""
    state = overall(outcomes)
    certified = sum(o.state == CERTIFIED for o in outcomes)
    head = f"{state.upper()} by {field_name}: {certified}/{len(outcomes)} slices certified"
    failed = [o.name for o in outcomes if o.state == FAILED]
    open_ = [o.name for o in outcomes if o.state == UNDECIDED]
    if failed:
        head += f"; not certified: {', '.join(failed)}"
    if open_:
        head += f"; undecided: {', '.join(open_)}"
    return f"{head}; wrote {written}"
