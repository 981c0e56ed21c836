"""Two unit-test runs compared (the kind's `compare` and `figures` hooks): by each test's pass on a metric, with
McNemar's test, the tests that flipped, and the drift of a test's pass on every metric."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from judges.errors import InputError
from judges.pages.markdown import pct
from judges.runs.run_config import RunConfig
from judges.runs.summarizer import SHORT
from judges.suite.drift import drift, drift_lines, outcome_values
from judges.suite.outcome_summary import outcomes_of
from judges.suite.reference import summary_beside
from judges.suite.suite_settings import SuiteSettings

if TYPE_CHECKING:
    from judges.records import MetricRecord, Summary
    from judges.runs.run import Run


class ByPass:
    """Two unit-test runs compared by pass: an item's value is 1.0 for a pass, 0.0 for a wrong grade."""

    rate = True

    def __init__(self, before: Run, after: Run) -> None:
        self.before, self.after = before, after

    def values(self, run: Run, metric: str) -> dict[str, float]:
        return outcome_values(run, metric)

    def state(self, entry: MetricRecord) -> str:
        return entry.outcome.value if entry.outcome else "-"

    def flipped(self, old: str, new: str) -> bool:
        return (old == "pass") != (new == "pass")

    def title(self, changed: Sequence[tuple[str, str, str, str]]) -> str:
        gained = sum(new == "pass" for *_, new in changed)
        return f"{len(changed)} flipped outcomes ({gained} now pass, {len(changed) - gained} now do not)"

    def lines(self, before_name: str, after_name: str) -> list[str]:
        """McNemar's test, the paired difference and both fingerprints, when the runs share tests (a test's pass on
        every metric: not the per-metric flips)."""
        try:
            result = drift(self.before, self.after)
        except InputError:
            return []
        return ["", *drift_lines(result, before_name, after_name, listed=0)]


def pass_figures(run: Run) -> dict[str, str]:
    """A unit-test run's figures beside others': each metric's pass rate, the total and the run failures."""
    part = outcomes_of(run.summary.part)
    cells = {SHORT.get(m, m): pct(s.pass_rate) for m, s in run.summary.metrics.items()}
    cells["total"] = pct(part.total_pass_rate)
    cells["run failures"] = str(part.failures or 0)
    return cells


def headline(summary: Summary) -> tuple[str, float | None, int]:
    """The viewer index's figure of a unit-test run: its total pass rate, and its failed verdicts."""
    part = outcomes_of(summary.part)
    return "total pass rate", part.total_pass_rate, part.failures or 0


def figure_rows(summary: Summary, config: RunConfig) -> list[dict[str, Any]]:
    """The viewer's figures of a unit-test run: each metric's pass rate beside the baselines', and the total."""
    references = {r.metric: r for r in summary_beside(summary, config.settings(SuiteSettings.of).baselines)}

    def reference_cells(metric: str) -> dict[str, str]:
        row = references.get(metric)
        return {} if row is None else row.cells()

    rows: list[dict[str, Any]] = [
        {
            "metric": metric,
            "pass rate": pct(s.pass_rate),
            **reference_cells(metric),
            "passed": s.passed,
            "wrong grades": s.wrong_grades,
            "run failures": s.failures,
            "n": s.n,
        }
        for metric, s in summary.metrics.items()
    ]
    if rows:
        total = {"metric": "total (mean of the pass rates)", "pass rate": pct(summary.total_pass_rate)}
        rows.append(total | reference_cells("total"))
        rows[-1].update({k: "" for k in rows[0] if k not in rows[-1]})
    return rows
