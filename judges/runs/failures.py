"""The unit tests a run did not pass, named the same way everywhere (summary.md, JUnit, pytest, the terminal)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

NOT_PASSED = ("wrong_grade", "failure")
RAW_SHOWN = 200  # characters of the raw reply shown when the reply gave no reason


def reason(entry: Mapping[str, Any]) -> str:
    """Why a verdict is what it is: the reply's reason (or the failure's message, or a metric step's reason);
    when the reply gave none, the first 200 characters of the last raw reply, marked as such."""
    verdict = entry["verdict"]
    details = entry.get("details")
    step = details.get("reason") if isinstance(details, dict) else None
    text = str(verdict.get("justification") or verdict.get("message") or step or "").strip()
    if text:
        return text
    raw = next((str(c["reply"]) for c in reversed(entry.get("calls") or []) if c.get("reply")), "")
    return f"raw reply: {raw[:RAW_SHOWN]}" if raw.strip() else ""


@dataclass(frozen=True)
class Miss:
    """One test x metric outcome that was not a pass."""

    test: str
    test_type: str | None
    metric: str
    expected: str | None
    given: str
    outcome: str
    justification: str

    def describe(self, width: int = 100) -> str:
        """`faithfulness: expected ==1, got 0 (wrong grade): <one line of the justification>`."""
        why = one_line(self.justification, width)
        what = "wrong grade" if self.outcome == "wrong_grade" else "run failure"
        return f"{self.metric}: expected {self.expected}, got {self.given} ({what})" + (f": {why}" if why else "")


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3].rstrip() + "..."


def misses(records: Iterable[Mapping[str, Any]], metric: str | None = None) -> list[Miss]:
    """The first draw's outcomes that were not passes, in item order (optionally for one metric)."""
    from judges.runs.markdown import given

    out = []
    for record in records:
        if record.get("draw", 0) != 0:
            continue
        for name, entry in record["metrics"].items():
            if entry.get("outcome") not in NOT_PASSED or (metric is not None and name != metric):
                continue
            verdict = entry["verdict"]
            out.append(
                Miss(
                    str(record["id"]),
                    record.get("test_type"),
                    name,
                    entry.get("condition"),
                    given(verdict),
                    entry["outcome"],
                    reason(entry),
                )
            )
    return out


def by_test(found: Iterable[Miss]) -> dict[str, list[Miss]]:
    grouped: dict[str, list[Miss]] = {}
    for miss in found:
        grouped.setdefault(miss.test, []).append(miss)
    return grouped


def listing(records: Iterable[Mapping[str, Any]], target: str | None = None, limit: int = 10) -> list[str]:
    """Lines naming the tests not passed (for a bar's target: its metric, or every metric for `total` and
    `failure_rate`), at most `limit`, then "and N more: see report.html"."""
    from judges.types import ALL_METRICS

    metric = target if target in ALL_METRICS else None
    found = misses(records, metric)
    if target == "failure_rate":
        found = [m for m in found if m.outcome == "failure"]
    lines = [f"{m.test}: {m.describe()}" for m in found[:limit]]
    if len(found) > limit:
        lines.append(f"and {len(found) - limit} more: see report.html")
    return lines
