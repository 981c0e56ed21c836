"""What every command prints when a run ends: the summary, the files written, a one-line failure summary on
stderr, and the exit code the run's ending maps to."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from judges.runs.call_totals import run_call_totals
from judges.runs.kinds import kind_of

if TYPE_CHECKING:
    from judges.runs.run import Run


def failure_summary(run: Run) -> str | None:
    """ "12 of 456 calls failed: 9 timeout, 3 unparseable", from the same count summary.md and run.json give."""

    totals = run_call_totals(run)
    return f"{totals.failed} of {totals.asked} calls failed: {totals.kinds}" if totals.failed else None


def finish_run(run: Run, files: list[str], *, quiet: bool = False) -> int:
    """Print the summary, where it went and, last, its conclusion ("What this says", also in place in the summary);
    one stderr line for failed calls and one for an early stop. A run that stopped before any item (an endpoint
    never reached) prints no empty report above its one line."""
    if not quiet and not (run.stop_reason and not run.summary.n_items):
        print((run.folder / "summary.md").read_text(encoding="utf-8") if run.folder else "", end="")
        if run.folder is not None:  # every run folder has its report.html: name it whichever command wrote it
            shown = files + [name for name in ("report.html",) if name not in files and (run.folder / name).is_file()]
            print(f"wrote {run.folder}/" + ", ".join(shown))
        verdict = kind_of(run.kind).conclusion(run.summary, run.config)
        if verdict is not None:  # the line to act on, after the tables rather than scrolled away above them
            print(f"\n**What this says:** {verdict}")
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
