"""The unit tests a run did not pass, named the same way everywhere (summary.md, JUnit, pytest, the terminal)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from judges.records import ItemRecord
from judges.runs.failures import given, one_line, reason
from judges.types import ALL_METRICS, Outcome

NOT_PASSED = (Outcome.WRONG_GRADE, Outcome.FAILURE)


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


def record_misses(record: ItemRecord, metric: str | None = None) -> Iterator[Miss]:
    """A first-draw record's outcomes that were not passes (optionally for one metric)."""
    if record.draw != 0:
        return
    for name, entry in record.metrics.items():
        if entry.outcome not in NOT_PASSED or (metric is not None and name != metric):
            continue
        yield Miss(
            record.id,
            record.test_type,
            name,
            entry.condition,
            given(entry.verdict),
            entry.outcome.value,
            reason(entry),
        )


def misses(records: Iterable[ItemRecord], metric: str | None = None) -> list[Miss]:
    """The first draw's outcomes that were not passes, in the records' order (optionally for one metric)."""
    return [miss for record in records for miss in record_misses(record, metric)]


def first_misses(
    records: Iterable[ItemRecord], limit: int, metric: str | None = None, outcome: str | None = None
) -> tuple[list[Miss], int]:
    """The first `limit` misses in item order, and how many there are, holding no more than `limit` of them (the
    records may come in any order, streamed from results.jsonl)."""
    total = 0

    def keyed() -> Iterator[tuple[tuple[int, int], Miss]]:
        nonlocal total
        for record in records:
            found = (m for m in record_misses(record, metric) if outcome is None or m.outcome == outcome)
            for index, miss in enumerate(found):
                total += 1
                yield (record.order, index), miss

    shown = heapq.nsmallest(limit, keyed(), key=lambda pair: pair[0])
    return [miss for _, miss in shown], total


def by_test(found: Iterable[Miss]) -> dict[str, list[Miss]]:
    grouped: dict[str, list[Miss]] = {}
    for miss in found:
        grouped.setdefault(miss.test, []).append(miss)
    return grouped


def listing(records: Iterable[ItemRecord], target: str | None = None, limit: int = 10) -> list[str]:
    """Lines naming the tests not passed (for a bar's target: its metric, or every metric for `total` and
    `failure_rate`), at most `limit`, then "and N more: see report.html"."""

    metric = target if target in ALL_METRICS else None
    found, total = first_misses(records, limit, metric, "failure" if target == "failure_rate" else None)
    lines = [f"{m.test}: {m.describe()}" for m in found]
    if total > limit:
        lines.append(f"and {total - limit} more: see report.html")
    return lines
