"""A run's folder in full: its data (run.json beside the streamed results.jsonl), then summary.md and report.html."""

from __future__ import annotations

from pathlib import Path

from judges.render.report import write_report
from judges.render.summary_md import summary_markdown
from judges.runs.run import Run


def save_run(run: Run, folder: str | Path) -> None:
    """Write run.json, then summary.md and report.html drawn from the run."""
    folder = Path(folder)
    run.save(folder)
    (folder / "summary.md").write_text(summary_markdown(run), encoding="utf-8")
    write_report(run, folder)
