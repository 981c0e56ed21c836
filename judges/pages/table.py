"""Table values for the page templates: cells with a sort key and a class, rows with filter attributes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Cell:
    """What a table cell shows, the value it sorts by (when not its text), and a CSS class."""

    text: str
    sort: str | float | None = None
    cls: str = ""


@dataclass(frozen=True)
class Row:
    """A row of cells; `data` becomes `data-*` attributes the page's filters read."""

    cells: list[Cell]
    cls: str = ""
    data: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Table:
    id: str
    headers: list[str]
    rows: list[Row]


def shown(value: Any, digits: int = 3) -> str:
    """None as "n/a", a float with `digits` decimals, anything else as text."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def cell(value: Any, sort: str | float | None = None, cls: str = "", digits: int = 3) -> Cell:
    """A cell for a plain value; numbers sort by their value, n/a sorts first."""
    if sort is None and isinstance(value, (int, float)) and not isinstance(value, bool):
        sort = float(value)
    if sort is None and value is None:
        sort = -1.0
    return Cell(shown(value, digits), sort, cls)


def plain_table(id: str, rows: list[dict[str, Any]]) -> Table:
    """A table of dicts with the same keys (the first row's keys are the headers)."""
    headers = list(rows[0]) if rows else []
    return Table(id, headers, [Row([v if isinstance(v, Cell) else cell(v) for v in r.values()]) for r in rows])
