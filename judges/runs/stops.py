"""How a run that did not finish cleanly is announced at the top of summary.md and report.html."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judges.runs.run import Run

HEADINGS = {
    "budget": "Stopped early at the budget",
    "endpoint_unusable": "Stopped early: the endpoint is unusable",
    "cache": "Stopped early: the cache broke",
    "error": "Stopped early by an error",
    "interrupted": "Interrupted",
    "crash": "Crashed",
    "degraded": "Degraded run",
}


def stop_note(run: Run) -> tuple[str, str] | None:
    """(heading, sentence) for a run that did not finish cleanly, None for one that did."""
    if not run.stop_reason:
        return None
    heading = f"{HEADINGS.get(run.stop_reason, 'Stopped early')} ({run.stop_reason})"
    after = (
        "Every item ran, but its figures rest on too few verdicts to be trusted."
        if run.stop_reason == "degraded"
        else "The figures cover only the items that finished."
    )
    return heading, f"{(run.stop_message or '').rstrip('.')}. {after}"
