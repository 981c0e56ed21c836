"""A run's one count of calls and failed calls, as every report states it (the terminal, summary.md, report.html,
`judgelab view`): read from the runtime's counter that run.json's `usage` keeps, which also counts the calls of items
that never finished (a dead endpoint fails calls before any item is recorded); the records' totals only for a run
folder whose usage has no failure counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judges.records.usage import RunUsage

if TYPE_CHECKING:
    from judges.records import Usage
    from judges.runs.run import Run


@dataclass(frozen=True)
class CallTotals:
    """Calls made (replies plus calls that got none), those answered from the cache, those failed and by kind."""

    asked: int
    cached: int
    failed: int
    failures: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    @property
    def kinds(self) -> str:
        """ "9 timeout, 3 unparseable", the commonest first."""
        ordered = sorted(self.failures.items(), key=lambda kv: (-kv[1], kv[0]))
        return ", ".join(f"{n} {kind}" for kind, n in ordered)

    def line(self) -> str:
        """`Calls: 8 (0 from cache, 8 failed: 8 connection); tokens: ...; cost: $0.0000.`"""
        failed = f"{self.failed} failed" + (f": {self.kinds}" if self.failed else "")
        return (
            f"Calls: {self.asked} ({self.cached} from cache, {failed}); tokens: {self.prompt_tokens} prompt + "
            f"{self.completion_tokens} completion; cost: ${self.cost:.4f}."
        )


def call_totals(usage: Mapping[str, Any] | None, recorded: Usage) -> CallTotals:
    """The totals from run.json's `usage` (the runtime's counter) when it counts failures, else (a run made of
    others' records, or a folder of a judgelab that kept no failures there) from `recorded`: calls made, cached,
    failed and by kind (`judges.records.usage.CallCounts` says what each counts), tokens and cost."""
    counts = RunUsage.from_json(usage) if usage and "failures" in usage else recorded
    return CallTotals(
        counts.calls,
        counts.cached_calls,
        counts.failed_calls,
        dict(counts.failures),
        counts.prompt_tokens,
        counts.completion_tokens,
        counts.cost,
    )


def run_call_totals(run: Run) -> CallTotals:
    return call_totals(run.usage.to_json() if run.usage is not None else None, run.summary.usage)
