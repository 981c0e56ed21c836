"""One page of a run's items, read line by line from results.jsonl: only that page is ever held in memory."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def _rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    from judges.runs.failures import reason
    from judges.runs.markdown import given

    out = []
    for metric, entry in (record.get("metrics") or {}).items():
        verdict = entry.get("verdict") or {}
        out.append(
            {
                "id": str(record.get("id")),
                "draw": record.get("draw", 0),
                "test_type": record.get("test_type") or "-",
                "metric": metric,
                "expected": entry.get("condition") or "-",
                "given": given(verdict) if "state" in verdict else "-",
                "outcome": entry.get("outcome") or verdict.get("state", "-"),
                "reason": reason(entry) if verdict else "",
            }
        )
    return out


def _keep(row: dict[str, Any], outcome: str, metric: str) -> bool:
    if metric and row["metric"] != metric:
        return False
    if outcome == "not-passed":
        return row["outcome"] not in ("pass", "grade", "null")
    return not outcome or row["outcome"] == outcome


def read_page(results: Path, page: int = 1, size: int = PAGE_SIZE, outcome: str = "", metric: str = "") -> ItemPage:
    """Rows `(page-1)*size .. page*size` of the rows matching `outcome` ("" for all, "not-passed", or an outcome or
    verdict state) and `metric`, in file order; a line that is not JSON is skipped (the run may still be writing)."""
    page, size = max(1, page), max(1, min(size, 500))
    first, matching, kept = (page - 1) * size, 0, []
    with results.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            for row in _rows(record) if isinstance(record, dict) else []:
                if _keep(row, outcome, metric):
                    if first <= matching < first + size:
                        kept.append(row)
                    matching += 1
    return ItemPage(kept, matching, page, size)
