"""--fail-on-error: a finished run whose share of failed verdicts in some metric is over the limit is degraded."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judges.records import MetricSummary, Summary


def failed_share(counts: MetricSummary) -> tuple[int, int]:
    """(failed verdicts, verdicts that could be judged) of one metric's summary counts."""
    judged = counts.n - (counts.not_applicable or 0)
    return counts.failed, max(judged, 0)


def degraded_line(summary: Summary, limit: float | None) -> str | None:
    """One line naming the metric with the largest share of failed verdicts and its commonest failure kind, when
    that share is over `limit`; None when every metric is within it (or no limit is set)."""
    if limit is None:
        return None
    worst: tuple[float, str, int, int] | None = None
    for metric, counts in summary.metrics.items():
        failed, judged = failed_share(counts)
        if judged and failed / judged > limit and (worst is None or failed / judged > worst[0]):
            worst = (failed / judged, metric, failed, judged)
    if worst is None:
        return None
    share, metric, failed, judged = worst
    kinds = summary.metrics[metric].failure_kinds
    kind, count = max(kinds.items(), key=lambda pair: (pair[1], pair[0])) if kinds else ("unknown", failed)
    return (
        f"{failed} of {judged} {metric} verdicts failed ({share:.0%}, over --fail-on-error {limit:g}), "
        f"mostly {kind} ({count})"
    )
