"""Markdown building blocks shared by every report: percentages and tables (through tabulate)."""

from __future__ import annotations

from typing import Any


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of rows (dicts with the same keys), through tabulate (pandas would cost its import)."""
    from tabulate import tabulate

    if not rows:
        return ""
    return str(tabulate(rows, headers="keys", tablefmt="github", missingval=""))


def grid(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table from a header row and rows of cells (headers may repeat), through tabulate."""
    from tabulate import tabulate

    cells = [[str(c).replace("|", "\\|").replace("\n", " ") for c in row] for row in rows]
    return str(tabulate(cells, headers=headers, tablefmt="github", disable_numparse=True))
