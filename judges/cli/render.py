"""What every command prints when a run ends: the summary, the files written, a one-line failure summary on
stderr, and the exit code the run's ending maps to."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judges.runs.run import Run


def failure_summary(run: Run) -> str | None:
    """ "12 of 456 calls failed: 9 timeout, 3 unparseable", from the same count summary.md and run.json give."""
    from judges.runs.call_totals import run_call_totals

    totals = run_call_totals(run)
    return f"{totals.failed} of {totals.asked} calls failed: {totals.kinds}" if totals.failed else None


def finish_run(run: Run, files: list[str], *, quiet: bool = False) -> int:
    """Print the summary and where it went; one stderr line for failed calls and one for an early stop."""
    if not quiet:
        print((run.folder / "summary.md").read_text(encoding="utf-8") if run.folder else "", end="")
        if run.folder is not None:  # every run folder has its report.html: name it whichever command wrote it
            shown = files + [name for name in ("report.html",) if name not in files and (run.folder / name).is_file()]
            print(f"wrote {run.folder}/" + ", ".join(shown))
    failed = failure_summary(run)
    if run.stop_reason == "degraded":  # one line: the metric and failure kind that dominate
        print(f"judgelab: degraded run: {run.stop_message}" + (f"; {failed}" if failed else ""), file=sys.stderr)
    elif run.stop_reason:  # one line: why it stopped (naming the model, endpoint and error), and what failed
        print(
            f"judgelab: stopped ({run.stop_reason}): {run.stop_message}" + (f"; {failed}" if failed else ""),
            file=sys.stderr,
        )
    elif failed:
        print(f"judgelab: {failed}", file=sys.stderr)
    return run.exit_code
