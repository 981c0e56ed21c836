"""A lean read of a plain predictions JSONL file (an id and a score per line) into columns, or None to read it row
by row; outcomes of one metric held so that a list of them is read without a key per item."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence, ValuesView
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.files.jsonl import max_record_bytes
from judges.types import VerdictState

if TYPE_CHECKING:
    import numpy as np

Scores = tuple["np.ndarray", "np.ndarray | None"]  # grades in the asked order, and which asked ids have one (None: all)


def plain_columns(
    path: Path, id_field: str, score_field: str, bounds: tuple[float, float] | None
) -> tuple[list[str], np.ndarray] | None:
    """The ids (as strings) and scores of a JSONL file whose lines hold only `id_field` and
    `score_field`, every id distinct and string or integer, every score a finite number within `bounds`;
    None for anything else (the row-by-row reader then reads it and names the line of any problem). Lines written
    the usual way are read by one regular expression over the file, others by the standard library's parser line
    by line (pyarrow's JSON reader crashed the process on fuzzed input)."""
    import numpy as np  # defers numpy

    data = path.read_bytes()
    if not data or b"\\u" in data or data.startswith(b"\xef\xbb\xbf"):
        return None  # escapes (a lone surrogate) and a byte-order mark: the row reader's checks
    limit = max_record_bytes()
    breaks = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) if len(data) > limit else None
    if breaks is not None and np.diff(breaks, prepend=-1, append=len(data)).max() - 1 > limit:  # a line too long
        return None
    found = regular_lines(data, id_field, score_field)
    if found is None:
        found = parsed_lines(data, id_field, score_field)
    if found is None:
        return None
    names, scores = found
    values = np.asarray(scores, dtype=float)
    if not names or len(set(names)) != len(names) or not np.isfinite(values).all():
        return None
    if bounds is not None and (values.min() < bounds[0] or values.max() > bounds[1]):
        return None
    return names, values


_SPACE = r"[ \t\r]*"
_TEXT = r'"([^"\\\x00-\x1f]*)"'  # a JSON string without escapes nor control characters
_NUMBER = r"(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"  # a JSON number


def regular_lines(data: bytes, id_field: str, score_field: str) -> tuple[list[str], list[float]] | None:
    """Every non-blank line `{"<id_field>": "<id>", "<score_field>": <number>}` (JSON spaces allowed), read by one
    regular expression, as the standard library's parser reads it; None when any line is written otherwise (an
    integer id, other keys or order, escapes), for the line-by-line parser. The file is read a block of lines at a
    time, so that only a block's matches are held at once."""
    import re  # defers re

    def key(name: str) -> str:
        return '"' + re.escape(name) + '"'

    space, colon = _SPACE, _SPACE + ":" + _SPACE
    head, tail = rf"^{space}\{{{space}{key(id_field)}{colon}", rf"{space}\}}{space}$"
    line = re.compile(rf"{head}{_TEXT}{space},{space}{key(score_field)}{colon}{_NUMBER}{tail}", flags=re.MULTILINE)
    blank = re.compile("^" + _SPACE + "$", flags=re.MULTILINE)
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    names: list[str] = []
    scores: list[float] = []
    for block in _blocks(text):
        found = line.findall(block)
        if len(found) + len(blank.findall(block)) != block.count("\n") + 1:
            return None  # a line the expression does not read
        names += [sys.intern(name) for name, _ in found]  # one string per id across files
        # float() reads a JSON number as json's parser does, but for an integer -0, which json reads as the integer 0
        scores += [0.0 if number == "-0" else float(number) for _, number in found]
    return names, scores


def _blocks(text: str, size: int = 1 << 20) -> Iterator[str]:
    """The text in blocks of whole lines of about `size` characters (each but the last ends with its newline)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def parsed_lines(data: bytes, id_field: str, score_field: str) -> tuple[list[str], list[float]] | None:
    """Each non-blank line parsed as JSON: exactly `id_field` (string or int) and `score_field` (a number), or None."""
    names: list[str] = []
    scores: list[float] = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            item, score = row[id_field], row[score_field]
            if len(row) != 2 or isinstance(item, bool) or isinstance(score, bool):
                return None
            if not isinstance(item, (str, int)) or not isinstance(score, (int, float)):
                return None
            names.append(sys.intern(str(item)))  # one string per id across files
            scores.append(float(score))
        except (ValueError, TypeError, KeyError, OverflowError, RecursionError):  # not one plain object: row by row
            return None
    return names, scores


class OneMetric(Mapping[tuple[str, str | None], Any]):
    """Outcomes of one metric keyed (id, None); `outcomes` reads the outcome of each of many ids at once."""

    def outcomes(self, ids: Sequence[str]) -> list[Any]:
        """The outcome of each id (None where there is none), in order."""
        raise NotImplementedError

    def item_ids(self) -> set[str]:
        return {item for item, _ in self}

    def score_columns(self, ids: Sequence[str]) -> Scores | None:
        """The grades of `ids` as a column and which ids have one (None: all), when held as columns; else None."""
        return None

    def may_state_confidence(self) -> bool:
        """Whether an outcome may carry a stated confidence (grades held as a column carry none)."""
        return True


class ItemOutcomes(OneMetric):
    """Outcomes by item id (a leaderboard's outcome per labelled item), keyed (id, None) without a copy."""

    def __init__(self, by_id: Mapping[str, Any]) -> None:
        self._by_id = by_id

    def __getitem__(self, key: tuple[str, str | None]) -> Any:
        item, metric = key
        if metric is not None:
            raise KeyError(key)
        return self._by_id[item]

    def get(self, key: tuple[str, str | None], default: Any = None) -> Any:
        item, metric = key
        return self._by_id.get(item, default) if metric is None else default

    def __iter__(self) -> Iterator[tuple[str, str | None]]:
        return ((item, None) for item in self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def outcomes(self, ids: Sequence[str]) -> list[Any]:
        if isinstance(self._by_id, ColumnItems):
            return self._by_id.outcomes(ids)
        return list(map(self._by_id.get, ids))

    def item_ids(self) -> set[str]:
        return set(self._by_id)

    def score_columns(self, ids: Sequence[str]) -> Scores | None:
        return self._by_id.score_columns(ids) if isinstance(self._by_id, ColumnItems) else None

    def may_state_confidence(self) -> bool:
        return not isinstance(self._by_id, ColumnItems)


class ColumnOutcomes(OneMetric):
    """Grades keyed (id, None) held as columns (ids, scores); each outcome made (by `make`, the Prediction class)
    when it is read. The id -> row index is built when first needed (a board reads every file before it scores
    any, and reads outcomes in the labels' order, often the file's own: then no index at all)."""

    def __init__(self, names: list[str], values: np.ndarray, make: Callable[..., Any]) -> None:
        self._names, self._values, self._make = names, values, make

    @functools.cached_property
    def _row(self) -> dict[str, int]:
        return {name: n for n, name in enumerate(self._names)}

    def __getitem__(self, key: tuple[str, str | None]) -> Any:
        item, metric = key
        if metric is not None:
            raise KeyError(key)
        return self._make(item, VerdictState.GRADE, float(self._values[self._row[item]]))

    def get(self, key: tuple[str, str | None], default: Any = None) -> Any:
        """As `Mapping.get`, without raising and catching a KeyError for each (id, metric) that is not held."""
        item, metric = key
        row = self._row.get(item) if metric is None else None
        return default if row is None else self._make(item, VerdictState.GRADE, float(self._values[row]))

    def __iter__(self) -> Iterator[tuple[str, str | None]]:
        return ((name, None) for name in self._names)

    def __len__(self) -> int:
        return len(self._names)

    def outcomes(self, ids: Sequence[str]) -> list[Any]:
        if (held := self.items_in(ids)) is not None:
            return held.outcomes(ids)
        values, make, grade = self._values.tolist(), self._make, VerdictState.GRADE
        rows = map(self._row.get, ids)
        return [None if row is None else make(item, grade, values[row]) for item, row in zip(ids, rows)]

    def item_ids(self) -> set[str]:
        return set(self._names)

    def may_state_confidence(self) -> bool:
        return False

    def score_columns(self, ids: Sequence[str]) -> Scores | None:
        if (held := self.items_in(ids)) is not None:
            return held.score_columns(ids)
        return _looked_up(self._values, self._row, ids)

    def items_in(self, ids: Sequence[str]) -> ColumnItems | None:
        """The grades by item id when `ids` are exactly the file's ids, in its order or another (else None), still
        columns: in another order the scores are put in the order of `ids` (no index kept, no object per item)."""
        if len(ids) != len(self._names) or all(map(str.__eq__, ids, self._names)):
            return ColumnItems(list(ids), self._values, self._make) if len(ids) == len(self._names) else None
        import numpy as np  # defers numpy

        row = self.__dict__.get("_row") or dict(zip(self._names, range(len(self._names))))  # kept if built before
        try:
            rows = np.fromiter(map(row.__getitem__, ids), dtype=np.intp, count=len(ids))
        except KeyError:
            return None  # an id the file does not hold
        unique = len(np.unique(rows)) == len(rows)  # else an id asked twice, so one of the file's not asked
        return ColumnItems(list(ids), self._values[rows], self._make) if unique else None


class ColumnItems(Mapping[str, Any]):
    """Grades by item id held as columns (the ids in order, their scores), each outcome made when read: a board
    holds its jury members' outcomes so, not as a million objects each. Every outcome is a grade."""

    def __init__(self, ids: list[str], values: np.ndarray, make: Callable[..., Any]) -> None:
        self._ids, self._values, self._make = ids, values, make

    @functools.cached_property
    def _row(self) -> dict[str, int]:
        return {item: n for n, item in enumerate(self._ids)}

    def __getitem__(self, item: str) -> Any:
        return self._make(item, VerdictState.GRADE, float(self._values[self._row[item]]))

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def values(self) -> ValuesView[Any]:
        return _ColumnValues(self)

    def made(self) -> Iterator[Any]:
        """Every outcome in order, made from the columns (no id index)."""
        make, grade = self._make, VerdictState.GRADE
        return (make(item, grade, value) for item, value in zip(self._ids, self._values.tolist()))

    def scores_in(self, ids: Sequence[str]) -> np.ndarray | None:
        """The scores of `ids` when they are exactly the held ids in order (else None)."""
        return self._values if ids == self._ids or list(ids) == self._ids else None

    def score_columns(self, ids: Sequence[str]) -> Scores:
        """The grades of `ids` as a column and which ids have one (None: all)."""
        if (scores := self.scores_in(ids)) is not None:
            return scores, None
        return _looked_up(self._values, self._row, ids)

    def outcomes(self, ids: Sequence[str]) -> list[Any]:
        """The outcome of each id (None where there is none), in order."""
        make, grade = self._make, VerdictState.GRADE
        if (scores := self.scores_in(ids)) is not None:
            return [make(item, grade, value) for item, value in zip(ids, scores.tolist())]
        return [None if item not in self._row else self[item] for item in ids]


class _ColumnValues(ValuesView[Any]):
    """The outcomes of column-held grades, made in order from the columns."""

    _mapping: ColumnItems

    def __iter__(self) -> Iterator[Any]:
        return self._mapping.made()


def _looked_up(values: np.ndarray, row: Mapping[str, int], ids: Sequence[str]) -> Scores:
    """The held grade of each id (NaN where there is none) and which ids have one."""
    import numpy as np  # defers numpy

    index = np.fromiter((row.get(item, -1) for item in ids), dtype=np.int64, count=len(ids))
    present = index >= 0
    return np.where(present, values[index], np.nan), present
