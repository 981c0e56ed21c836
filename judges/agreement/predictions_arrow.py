"""A fast read of a plain predictions JSONL file (an id and a score per line) in columns, or None to read it row by row."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.files.jsonl import max_record_bytes
from judges.types import VerdictState

if TYPE_CHECKING:
    import numpy as np

PLAIN_ID_TYPES = ("string", "int64")  # ids as the row reader gives them (str of a JSON string or integer)
PLAIN_SCORE_TYPES = ("double", "int64")


def plain_columns(
    path: Path, id_field: str, score_field: str, bounds: tuple[float, float] | None
) -> tuple[list[str], np.ndarray] | None:
    """The ids (as strings) and scores of a JSONL file whose lines hold only `id_field` and
    `score_field`, every id distinct and string or integer, every score a finite number within `bounds`;
    None for anything else (the row-by-row reader then reads it and names the line of any problem)."""
    import numpy as np  # defers numpy
    import pyarrow as pa  # defers pyarrow
    import pyarrow.json as pa_json  # defers pyarrow

    data = path.read_bytes()
    if not data or b"\\u" in data or data.startswith(b"\xef\xbb\xbf"):
        return None  # escapes (a lone surrogate) and a byte-order mark: the row reader's checks
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    if np.diff(np.concatenate([[-1], ends, [len(data)]])).max() > max_record_bytes():
        return None
    try:
        table = pa_json.read_json(pa.py_buffer(data))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    del data
    if set(table.column_names) != {id_field, score_field} or table.num_rows == 0:
        return None
    ids, scores = table.column(id_field), table.column(score_field)
    if str(ids.type) not in PLAIN_ID_TYPES or str(scores.type) not in PLAIN_SCORE_TYPES:
        return None
    if ids.null_count or scores.null_count:  # a null and a missing key read alike here: the row reader tells them apart
        return None
    try:
        values = scores.cast(pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # an integer no float holds exactly
        return None
    names = [sys.intern(str(i)) for i in ids.to_pylist()]  # one string per id across files
    if len(set(names)) != len(names) or not np.isfinite(values).all():
        return None
    if bounds is not None and (values.min() < bounds[0] or values.max() > bounds[1]):
        return None
    return names, values


class ColumnOutcomes(Mapping[tuple[str, str | None], Any]):
    """Grades keyed (id, None) held as columns (ids, scores); each outcome made (by `make`, the Prediction class)
    when it is read."""

    def __init__(self, names: list[str], values: np.ndarray, make: Callable[..., Any]) -> None:
        self._row = {name: n for n, name in enumerate(names)}
        self._values, self._make = values, make

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
        return ((name, None) for name in self._row)

    def __len__(self) -> int:
        return len(self._row)
