"""The judge beside what a constant and the oracle score on the same unit tests, and the one line saying what to
conclude: a pass rate means little until the reader sees that always grading 5 would have scored the same.

The reference pass rates are the suite's discrimination table (`judges.suite.baselines.reference_rates`, the same
figures `check-tests --baselines` prints), computed once per run on the run's own tests and kept in run.json's
config under "baselines"; this module only reads them, so any report can import it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judges.pages.markdown import pct
from judges.suite.constant_grades import CONSTANT_GRADES
from judges.types import GROUSE_METRICS

if TYPE_CHECKING:
    from judges.records import Summary

CONSTANTS = tuple(CONSTANT_GRADES)  # judges that give one grade whatever the test
Rates = dict[str, dict[str, float | None]]


def constant_label(name: str, metric: str) -> str:
    """What the constant does on `metric`, in words: "always grading 5", "always answering null"."""
    if metric in GROUSE_METRICS:
        grade = CONSTANT_GRADES[name][metric]
        return "always answering null" if grade is None else f"always grading {grade}"
    return {
        "always-top": "always grading the top grade",
        "always-lowest": "always grading the lowest grade",
        "always-null": "always answering null",
    }[name]


@dataclass(frozen=True)
class Beside:
    """One metric (or "total"): the judge's pass rate, the best constant's (named) and the oracle's."""

    metric: str
    judge: float | None
    constant: str
    constant_rate: float | None
    oracle: float | None

    @property
    def label(self) -> str:
        return constant_label(self.constant, self.metric)

    def short(self) -> str:
        """The best-constant cell of a table: "66.7% (always 5)"."""
        return short_constant(self)

    def cells(self) -> dict[str, str]:
        """The two columns every table of a unit-test run sets beside the judge's pass rate."""

        return {"best constant": short_constant(self), "oracle": pct(self.oracle)}

    @property
    def beaten(self) -> bool | None:
        """Whether the judge passes more tests than the best constant; None when either has no figure."""
        if self.judge is None or self.constant_rate is None:
            return None
        return self.judge > self.constant_rate + 1e-9


def beside(judge: Mapping[str, float | None], baselines: Mapping[str, Mapping[str, float | None]]) -> list[Beside]:
    """Per metric of `judge` (its pass rates by metric, "total" among them): the best constant and the oracle."""
    rows = []
    for metric, rate in judge.items():
        present = [(name, baselines[name].get(metric)) for name in CONSTANTS if name in baselines]
        if not present:
            continue
        best, best_rate = max(present, key=lambda pair: -1.0 if pair[1] is None else pair[1])
        oracle = baselines.get("oracle", {}).get(metric)
        rows.append(Beside(metric, rate, best, best_rate, oracle))
    return rows


def summary_beside(summary: Summary, baselines: Mapping[str, Mapping[str, float | None]] | None) -> list[Beside]:
    """`beside` for a unit-test run's summary; empty when the run kept no baselines (a folder from before them)."""
    if not baselines:
        return []
    rates: dict[str, float | None] = {metric: s.pass_rate for metric, s in summary.metrics.items()}
    rates["total"] = summary.total_pass_rate
    return beside(rates, baselines)


def conclusion(rows: Sequence[Beside]) -> str | None:
    """One line: where the judge is no better than a constant on these tests, or that it beats every constant."""

    if not rows:
        return None
    judged = [r for r in rows if r.beaten is not None]
    behind = [r for r in judged if not r.beaten]
    if not judged:
        return "No metric has a pass rate to set beside the baselines (every verdict failed)."
    if not behind:
        total = next((r for r in rows if r.metric == "total"), rows[-1])
        return (
            f"On these tests the judge beats every constant on every metric (total {pct(total.judge)} against "
            f"{pct(total.constant_rate)} for {total.label}); the oracle is what a perfect judge scores."
        )
    parts = [
        f"{'the total' if r.metric == 'total' else r.metric} ({pct(r.judge)}; {r.label}: {pct(r.constant_rate)})"
        for r in behind
    ]
    share = "every figure" if len(behind) == len(judged) else f"{len(behind)} of {len(judged)} figures"
    return f"The judge is no better than a constant on {share} on these tests: " + "; ".join(parts) + "."


def short_constant(row: Beside) -> str:
    """The best-constant cell of a table: "66.7% (always 5)"."""

    return f"{pct(row.constant_rate)} ({row.label.replace('grading ', '').replace('answering ', '')})"
