"""The line of a TOML file where a key (given as a pydantic error location) is written, for one-line errors."""

from __future__ import annotations

import re
from typing import Any

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def key_line(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of `loc` (e.g. ('candidates', 0, 'temprature')): the key written in the table it belongs to,
    or that table's header; None when it cannot be told (a key set by the program, not the file)."""
    if not loc:
        return None
    table = tuple(loc[:-1])
    key = str(loc[-1])
    current: tuple[Any, ...] = ()
    counts: dict[tuple[str, ...], int] = {}
    table_line: int | None = None
    written = rf"[\"']?{re.escape(key)}[\"']?\s*="
    direct, inline = re.compile(rf"^\s*{written}"), re.compile(rf"[{{,]\s*{written}")
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            names = tuple(part.strip().strip("\"'") for part in header.group(2).split("."))
            if header.group(1) == "[[":
                counts[names] = counts.get(names, -1) + 1
                current = (*names[:-1], names[-1], counts[names])
            else:
                current = names
            if current == (*table, key) or (current[: len(table) + 1] == (*table, key) and isinstance(loc[-1], str)):
                return number  # the key is itself a table: its header
            if current == table:
                table_line = number
            continue
        code = line.split("#", 1)[0]
        if current == table and direct.search(code):
            return number
        if len(table) > len(current) and table[: len(current)] == current and inline.search(code):
            return number  # an inline table, e.g. params = {temprature = 0}
    return table_line
