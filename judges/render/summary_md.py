"""summary.md of a run: the figures as Markdown tables (tabulate), and the items the judge got wrong or failed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.pages.markdown import table
from judges.render.sample_rows import mean_text, sample_rows
from judges.runs.call_totals import run_call_totals
from judges.runs.consistency_rows import CONSISTENCY_NOTE, consistency_heading, consistency_rows
from judges.runs.kinds import kind_of
from judges.runs.near_constant import near_constant_lines
from judges.runs.stops import stop_note

if TYPE_CHECKING:
    from judges.records import Summary
    from judges.runs.run import Run


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
    own = kind.markdown(run)  # a kind's own sections (the unit-test kind's pass rates, the probes' rates)
    if own is not None:
        lines += own
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
