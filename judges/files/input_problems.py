"""Every problem of an input file at once: read all records, collect `file:line:field: message` lines, then raise."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from judges.errors import InputError, InputProblems
from judges.files.checked import json_type
from judges.files.jsonl import LineProblem, not_json_lines, numbered_lines, parse_line

Parsed = TypeVar("Parsed")


class RecordFields:
    """Reads one record's fields, noting every problem instead of stopping at the first."""

    def __init__(self, path: str, line: int) -> None:
        self.line = line
        self.problems = Problems(path)

    def need(self, container: Any, key: str, kind: type, label: str | None = None, *, nonempty: bool = False) -> Any:
        """`container[key]` when present and a `kind` (and not empty, if asked); otherwise None and a problem."""
        label = label or key
        if not isinstance(container, dict):
            return None  # the container's own problem is already noted
        if key not in container:
            self.problems.add("missing field", self.line, label)
            return None
        value = container[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.problems.add(
                f"expected {_KIND_NAMES.get(kind, kind.__name__)}, got {json_type(value)}", self.line, label
            )
            return None
        if nonempty and not (value.strip() if isinstance(value, str) else value):
            self.problems.add("must not be empty", self.line, label)
            return None
        return value

    def add(self, message: str, field: str | None = None) -> None:
        self.problems.add(message, self.line, field)

    def done(self) -> None:
        """Raise InputProblems with every problem of the record, if any."""
        self.problems.raise_if_any()


_KIND_NAMES = {
    str: "a string",
    list: "a list",
    dict: "an object",
    int: "an integer",
    float: "a number",
    bool: "true or false",
}


class Problems:
    """The problems found in one file, one line each, in the order met."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._found: list[tuple[int, str]] = []

    @property
    def lines(self) -> list[str]:
        """Problems by line number (those of the whole file first), each line's in the order found."""
        return [text for _, text in sorted(self._found, key=lambda found: found[0])]

    def add(self, message: str, line: int | None = None, field: str | None = None) -> None:
        where = ":".join(str(p) for p in (self.path, line, field) if p is not None)
        self._found.append((line or 0, f"{where}: {message}"))

    def add_error(self, err: InputError) -> None:
        """An InputError raised while parsing one record (it may already hold several lines)."""
        if isinstance(err, InputProblems):
            self._found += list(zip(err.line_numbers, err.problems))
        else:
            self.add(err.message, err.line, err.field)

    def raise_if_any(self) -> None:
        if self.lines:
            found = sorted(self._found, key=lambda item: item[0])
            raise InputProblems([text for _, text in found], line_numbers=[number for number, _ in found])


def read_records(path: str | Path, problems: Problems, expects: str = "") -> list[tuple[int, dict[str, Any]]]:
    """Every readable record of a JSONL file; bad lines and an empty file are added to `problems`. A file whose
    first line shows it is not JSON Lines is one InputError saying so (`jsonl.not_json_lines`)."""
    records = []
    for number, raw in numbered_lines(path):
        try:
            records.append((number, parse_line(raw)))
        except LineProblem as problem:
            hint = None if records or problems.lines else not_json_lines(raw, expects, path)
            if hint:
                raise InputError(hint, path=str(path), line=number) from None
            problems.add(str(problem), number, problem.field)
    if not records and not problems.lines:
        problems.add("the file holds no records (one JSON object per line expected)")
    return records


def parse_records(
    records: list[tuple[int, dict[str, Any]]], problems: Problems, parse: Callable[[int, dict[str, Any]], Parsed]
) -> list[tuple[int, Parsed]]:
    """`parse` applied to each record; each record's InputError joins `problems` and the others go on."""
    parsed = []
    for number, record in records:
        try:
            parsed.append((number, parse(number, record)))
        except InputError as err:
            problems.add_error(err)
    return parsed


def note_duplicate_ids(ids: list[tuple[int, str | None]], problems: Problems) -> None:
    """Each id given on more than one line is a problem at every repeat, naming the first line."""
    first: dict[str, int] = {}
    for line, record_id in ids:
        if record_id is None:
            continue
        if record_id in first:
            problems.add(f"duplicate id {record_id!r} (first on line {first[record_id]})", line, "id")
        else:
            first[record_id] = line
