"""A run's consistency with itself over K draws, as table rows for summary.md and report.html (every kind's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judges.pages.markdown import pct
from judges.pages.table import Table, plain_table
from judges.records import Consistency

if TYPE_CHECKING:
    from judges.runs.run import Run

CONSISTENCY_NOTE = (
    "Each item graded K times: the share of items whose verdict changed between draws (over the items with at "
    "least two verdicts that did not fail), and Krippendorff's alpha of the draws as coders over their grades "
    "(ordinal; n/a when the grades take one value). The verdict recorded is the modal one; its confidence, the "
    "share of draws that gave it."
)


def consistency_heading(consistency: Consistency) -> str:
    return f"Consistency over {consistency.draws} draws"


def consistency_rows(consistency: Consistency) -> list[dict[str, Any]]:
    """Per metric: the items compared, the share whose verdict changed, the self-agreement (alpha)."""
    return [
        {
            "metric": metric,
            "items": m.items,
            "verdict changed": pct(m.changed),
            "self-agreement (alpha)": "n/a" if m.self_alpha is None else f"{m.self_alpha:.3f}",
        }
        for metric, m in consistency.metrics.items()
    ]


def consistency_table(run: Run) -> list[tuple[str, Table]]:
    """With --draws K: per metric, how often the verdict changed and the judge's agreement with itself (report.html)."""
    consistency = run.summary.consistency
    if consistency is None:
        return []
    return [(consistency_heading(consistency), plain_table("consistency", consistency_rows(consistency)))]
