"""One page of a run's items, read line by line from results.jsonl: only that page is ever held in memory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.records import ItemRecord, MetricRecord
from judges.runs.failures import given, reason

PAGE_SIZE = 50


@dataclass(frozen=True)
class ItemPage:
    """Rows (item x metric) of page `page`, the number of rows matching the filter, and the page size."""

    rows: list[dict[str, Any]]
    matching: int
    page: int
    size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.matching // self.size))


def _state(entry: MetricRecord) -> str:
    """A unit test's outcome, else the verdict's state (grade, null, failure)."""
    return entry.outcome.value if entry.outcome else entry.verdict.state.value


def _keep(entry: MetricRecord, outcome: str, metric: str) -> bool:
    if metric and entry.metric != metric:
        return False
    if outcome == "not-passed":
        return _state(entry) not in ("pass", "grade", "null")
    return not outcome or _state(entry) == outcome


def _rows(record: ItemRecord, outcome: str = "", metric: str = "") -> list[dict[str, Any]]:
    """The record's item x metric rows that match the filter."""

    return [
        {
            "id": record.id,
            "draw": record.draw,
            "test_type": record.test_type or "-",
            "metric": name,
            "expected": entry.condition or "-",
            "given": given(entry.verdict),
            "outcome": _state(entry),
            "reason": reason(entry),
        }
        for name, entry in record.metrics.items()
        if _keep(entry, outcome, metric)
    ]


def read_page(results: Path, page: int = 1, size: int = PAGE_SIZE, outcome: str = "", metric: str = "") -> ItemPage:
    """Rows `(page-1)*size .. page*size` of the rows matching `outcome` ("" for all, "not-passed", or an outcome or
    verdict state) and `metric`, in file order; a line that is not JSON is skipped (the run may still be writing)."""
    page, size = max(1, page), max(1, min(size, 500))
    first, matching, kept = (page - 1) * size, 0, []
    with results.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = ItemRecord.from_json_line(line)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            for row in _rows(record, outcome, metric):
                if first <= matching < first + size:
                    kept.append(row)
                matching += 1
    return ItemPage(kept, matching, page, size)
