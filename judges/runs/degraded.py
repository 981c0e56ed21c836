"""--fail-on-error: a finished run whose share of failed verdicts in some metric is over the limit is degraded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def failed_share(counts: Mapping[str, Any]) -> tuple[int, int]:
    """(failed verdicts, verdicts that could be judged) of one metric's summary counts."""
    judged = int(counts.get("n", 0)) - int(counts.get("not_applicable", 0) or 0)
    return int(counts.get("failed", 0)), max(judged, 0)


def degraded_line(summary: Mapping[str, Any], limit: float | None) -> str | None:
    """One line naming the metric with the largest share of failed verdicts and its commonest failure kind, when
    that share is over `limit`; None when every metric is within it (or no limit is set)."""
    if limit is None:
        return None
    worst: tuple[float, str, int, int] | None = None
    for metric, counts in (summary.get("metrics") or {}).items():
        failed, judged = failed_share(counts)
        if judged and failed / judged > limit and (worst is None or failed / judged > worst[0]):
            worst = (failed / judged, metric, failed, judged)
    if worst is None:
        return None
    share, metric, failed, judged = worst
    kinds = summary["metrics"][metric].get("failure_kinds") or {}
    kind, count = max(kinds.items(), key=lambda pair: (pair[1], pair[0])) if kinds else ("unknown", failed)
    return (
        f"{failed} of {judged} {metric} verdicts failed ({share:.0%}, over --fail-on-error {limit:g}), "
        f"mostly {kind} ({count})"
    )
