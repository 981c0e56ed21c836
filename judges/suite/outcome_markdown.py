"""summary.md's unit-test sections (the kind's `markdown` hook): pass rates beside the baselines, what they say,
stability over draws, pass rates by test type, and the first tests not passed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judges.pages.markdown import pct, table
from judges.runs.failures import REASON_SHOWN, one_line
from judges.runs.summarizer import SHORT
from judges.suite.misses import first_misses
from judges.suite.outcome_summary import OutcomeSummary, outcomes_of
from judges.suite.reference import conclusion, summary_beside
from judges.suite.suite_settings import SuiteSettings

if TYPE_CHECKING:
    from judges.records import Summary
    from judges.runs.run import Run

MAX_LISTED = 40  # failing tests listed in summary.md (all of them are in results.jsonl)


def outcome_markdown(run: Run) -> list[str]:
    summary = run.summary
    part = outcomes_of(summary.part)
    beside = summary_beside(summary, run.config.settings(SuiteSettings.of).baselines)
    references = {row.metric: row for row in beside}

    def reference_cells(metric: str) -> dict[str, str]:
        row = references.get(metric)
        return {} if row is None else row.cells()

    rows = [
        {
            "metric": metric,
            "pass": pct(s.pass_rate),
            **reference_cells(metric),
            "wrong grade": pct(s.wrong_grade_rate),
            "run failures": s.failures,
            "completed": s.completed,
            "n": s.n,
        }
        for metric, s in summary.metrics.items()
    ]
    rests = rests_on_failures(summary)
    rows.append(
        {
            "metric": "**total (mean of the pass rates)**",
            "pass": f"**{pct(part.total_pass_rate)}**" + (" †" if rests else ""),
            **reference_cells("total"),
            "wrong grade": "",
            "run failures": part.failures,
            "completed": "",
            "n": "",
        }
    )
    lines = [
        "Pass and wrong-grade rates are over the tests that completed; a run failure (a call or parse "
        "failure, or a step upstream of it failing) is counted apart, never as a wrong grade. Beside the judge: "
        "the best constant judge (one grade whatever the test) and the oracle (the right grades) on the same tests.",
        "",
        table(rows),
    ]
    if rests:
        lines += ["", f"† {rests}"]
    verdict = conclusion(beside)
    if verdict is not None:
        lines += ["", f"**What this says:** {verdict}"]
    return lines + _stability_lines(part) + _by_test_type_lines(part) + _misses_lines(run)


def _stability_lines(part: OutcomeSummary) -> list[str]:
    """The stability section: each metric's grade variance and flip rate over repeated draws (none unrepeated)."""
    repeats = part.stability
    if repeats is None:
        return []
    rows = [
        {
            "metric": m,
            "mean grade variance": "n/a" if s.mean_grade_variance is None else f"{s.mean_grade_variance:.3f}",
            "pass/fail flip rate": pct(s.flip_rate),
        }
        for m, s in repeats.metrics.items()
    ]
    return ["", f"## Stability ({repeats.draws} draws of {repeats.tests} tests)", "", table(rows)]


def _by_test_type_lines(part: OutcomeSummary) -> list[str]:
    """The by-test-type section: each test type's pass rates."""
    rows = [
        {
            "test type": t,
            "n": s.n,
            **{SHORT.get(m, m): pct(v) for m, v in s.pass_rates.items()},
            "total": pct(s.total),
            "run failures": s.failures,
        }
        for t, s in part.by_test_type.items()
    ]
    return ["", "## By test type", "", table(rows)]


def _misses_lines(run: Run) -> list[str]:
    """The first tests not passed, with the judge's reason (and how many more)."""
    wrong, total = first_misses(run.iter_records(), MAX_LISTED)
    if not wrong:
        return []
    rows = [
        {
            "test": m.test,
            "type": m.test_type,
            "metric": SHORT.get(m.metric, m.metric),
            "grade expected": m.expected,
            "grade given": m.given,
            "outcome": m.outcome,
            "reason": one_line(m.justification, REASON_SHOWN).replace("|", "\\|"),
        }
        for m in wrong
    ]
    lines = ["", f"## Tests not passed ({total} test x metric outcomes)", "", table(rows)]
    if total > MAX_LISTED:
        lines += ["", f"And {total - MAX_LISTED} more: see report.html and results.jsonl."]
    return lines


def rests_on_failures(summary: Summary) -> str | None:
    """The note a total carries when failed verdicts were left out of the rates it averages (None when none)."""
    part = outcomes_of(summary.part)
    if not part.failures or not summary.metrics:
        return None
    worst, s = max(summary.metrics.items(), key=lambda pair: pair[1].failures or 0)
    return (
        f"the total rests on {part.completed_tests or 0} of {summary.n_items} tests: {part.failures} verdicts "
        f"failed and are left out of the rates (most in {worst}: {s.failures or 0} of {s.n})"
    )
