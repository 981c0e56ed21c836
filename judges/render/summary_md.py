"""summary.md of a run: the figures as Markdown tables (tabulate), and the items the judge got wrong or failed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.pages.markdown import pct, table
from judges.render.consistency_rows import CONSISTENCY_NOTE, consistency_heading, consistency_rows
from judges.render.sample_rows import mean_text, sample_rows
from judges.runs.call_totals import run_call_totals
from judges.runs.failures import REASON_SHOWN, first_misses, one_line
from judges.runs.kinds import kind_of
from judges.runs.near_constant import near_constant_lines
from judges.runs.stops import stop_note
from judges.runs.summarizer import SHORT

if TYPE_CHECKING:
    from judges.records import Summary
    from judges.runs.run import Run

MAX_LISTED = 40  # failing tests listed in summary.md (all of them are in results.jsonl)


def failures_line(run: Run) -> str:
    return run_call_totals(run).line()


def write_summary(run: Run, folder: Path) -> Path:
    path = folder / "summary.md"
    path.write_text(summary_markdown(run), encoding="utf-8")
    return path


NOT_FROM_A_FILE = "passed in code, not read from a file"  # a run of the Python API on Sample objects


def summary_markdown(run: Run) -> str:
    summary, config = run.summary, run.config
    lines = [f"# judgelab {run.kind.replace('_', ' ')}: {run.title}", ""]
    note = stop_note(run)
    if note is not None:
        lines += [f"**{note[0]}:** {note[1]}", ""]
    lines += [
        f"{summary.n_items} items "
        + (f"from {config.data}" if config.data else NOT_FROM_A_FILE)
        + (f" (split {config.split})" if config.split else "")
        + ".",
        "",
    ]
    kind = kind_of(run.kind)
    if kind.outcomes:
        lines += _unit_test_tables(run)
    elif (parts := kind.parts) is not None:
        lines += parts.markdown(run)
    else:
        lines += _verdict_table(summary, config.metric_info or {})
        if kind.judge_grades:  # a judge's grades (a metrics run's scores may come from no judge)
            lines += [
                line for found in near_constant_lines(summary) for line in ("", f"**Near-constant judge:** {found}.")
            ]
        lines += _sample_table(run)
    if summary.consistency is not None:
        heading = consistency_heading(summary.consistency)
        lines += ["", f"## {heading}", "", CONSISTENCY_NOTE, "", table(consistency_rows(summary.consistency))]
    lines += ["", failures_line(run)]
    return "\n".join(lines) + "\n"


def _unit_test_tables(run: Run) -> list[str]:
    summary = run.summary
    kind = kind_of(run.kind)
    references = {row.metric: row for row in kind.references(summary, run.config)}

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
            "pass": f"**{pct(summary.total_pass_rate)}**" + (" †" if rests else ""),
            **reference_cells("total"),
            "wrong grade": "",
            "run failures": summary.failures,
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
    verdict = kind.conclusion(summary, run.config)
    if verdict is not None:
        lines += ["", f"**What this says:** {verdict}"]
    lines += _stability_lines(summary) + _by_test_type_lines(summary) + _misses_lines(run)
    return lines


def _stability_lines(summary: Summary) -> list[str]:
    """The stability section: each metric's grade variance and flip rate over repeated draws (none unrepeated)."""
    lines: list[str] = []
    repeats = summary.stability
    if repeats is not None:
        lines += [
            "",
            f"## Stability ({repeats.draws} draws of {repeats.tests} tests)",
            "",
            table(
                [
                    {
                        "metric": m,
                        "mean grade variance": "n/a"
                        if s.mean_grade_variance is None
                        else f"{s.mean_grade_variance:.3f}",
                        "pass/fail flip rate": pct(s.flip_rate),
                    }
                    for m, s in repeats.metrics.items()
                ]
            ),
        ]
    return lines


def _by_test_type_lines(summary: Summary) -> list[str]:
    """The by-test-type section: each test type's pass rates."""
    lines: list[str] = []
    lines += [
        "",
        "## By test type",
        "",
        table(
            [
                {
                    "test type": t,
                    "n": s.n,
                    **{SHORT.get(m, m): pct(v) for m, v in s.pass_rates.items()},
                    "total": pct(s.total),
                    "run failures": s.failures,
                }
                for t, s in summary.by_test_type.items()
            ]
        ),
    ]
    return lines


def _misses_lines(run: Run) -> list[str]:
    """The first tests not passed, with the judge's reason (and how many more)."""
    lines: list[str] = []
    wrong, total = first_misses(run.iter_records(), MAX_LISTED)
    if wrong:
        lines += [
            "",
            f"## Tests not passed ({total} test x metric outcomes)",
            "",
            table(
                [
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
            ),
        ]
        if total > MAX_LISTED:
            lines += ["", f"And {total - MAX_LISTED} more: see report.html and results.jsonl."]
    return lines


def rests_on_failures(summary: Summary) -> str | None:
    """The note a total carries when failed verdicts were left out of the rates it averages (None when none)."""
    if not summary.failures or not summary.metrics:
        return None
    worst, s = max(summary.metrics.items(), key=lambda pair: pair[1].failures or 0)
    return (
        f"the total rests on {summary.completed_tests or 0} of {summary.n_items} tests: {summary.failures} verdicts "
        f"failed and are left out of the rates (most in {worst}: {s.failures or 0} of {s.n})"
    )


def _sample_table(run: Run) -> list[str]:
    rows, total, notes = sample_rows(run)
    if not rows:
        return []
    heading = (
        f"## Per sample (the first {len(rows)} of {total}; every one is in report.html)"
        if total > len(rows)
        else ("## Per sample")
    )
    return ["", heading, "", table(rows), *(["", *notes] if notes else [])]


def _verdict_table(summary: Summary, info: dict[str, Any]) -> list[str]:
    rows = []
    for metric, s in summary.metrics.items():
        kinds = ", ".join(f"{k} {v}" for k, v in s.failure_kinds.items())
        about = info.get(metric, {})
        described = (
            {"family": about["family"], "better": "higher" if about["higher_is_better"] else "lower"} if about else {}
        )
        rows.append(
            {
                "metric": metric,
                **described,
                "mean": mean_text(s.mean, metric, info),
                "graded": s.graded,
                "null": s.null,
                "not applicable": s.not_applicable,
                "failed": f"{s.failed}" + (f" ({kinds})" if kinds else ""),
                "n": s.n,
            }
        )
    return [table(rows)]
