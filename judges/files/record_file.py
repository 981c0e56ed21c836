"""A JSONL file of records as a sequence that is not held in memory: one checking pass notes every problem and the
byte offset of each good record; a record is parsed again from disk when the run reaches it (a small file's records,
parsed by that pass, are kept instead: a run reads them two or three times)."""

from __future__ import annotations

import os
from abc import abstractmethod
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

from judges.errors import InputError
from judges.files.input_problems import Problems, note_duplicate_ids
from judges.files.jsonl import LineProblem, all_lines, not_json_lines, numbered_lines, parse_line

T = TypeVar("T")
Parse = Callable[[int, dict[str, Any]], T]
# the checking pass keeps the parsed records of a file whose records take at most this many bytes (152 grounded-QA
# samples take 0.45 MB): a run reads them again two or three times (the checks before any call, the run itself)
KEPT_BYTES = 1 << 21


class OnDemand(Sequence[T]):
    """A sequence whose entries are made when asked (`at`), never stored: an index, a negative one or a slice."""

    @abstractmethod
    def at(self, index: int) -> T:
        """Entry `index` (0 <= index < len), made anew."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self.at(i) for i in range(*index.indices(len(self)))]
        return self.at(range(len(self))[index])


class RecordFile(OnDemand[T]):
    """The good records of a checked JSONL file (the first `limit` of them), parsed on each read: a run of a
    million samples holds two 8-byte numbers per sample (its line and offset), not the samples."""

    def __init__(
        self,
        path: Path,
        parse: Parse[T],
        lines: array[int],
        offsets: array[int],
        stamp: tuple[int, int],
        kept: list[T] | None = None,
    ):
        self.path, self._parse = path, parse
        self._lines, self._offsets, self._stamp = lines, offsets, stamp
        self._kept = kept  # every record, parsed, when the file is small (`KEPT_BYTES`); else None

    @classmethod
    def scan(
        cls,
        path: str | Path,
        parse: Parse[T],
        *,
        limit: int | None = None,
        record_id: Callable[[dict[str, Any]], str | None] | None = None,
        expects: str = "",
    ) -> RecordFile[T]:
        """Check every record of the file (each problem noted with its line and field; duplicate ids too when
        `record_id` gives them) and raise InputProblems with all of them; else the file's first `limit` records.
        A file whose first line shows it is not JSON Lines (a CSV, one JSON list) is one line saying so, naming the
        fields `expects` lists."""
        path = Path(path)
        problems = Problems(path)
        lines, offsets = array("q"), array("q")
        ids: list[tuple[int, str | None]] = []
        records, kept_bytes = 0, 0
        kept: list[T] | None = []
        stamp = _stamp(path) if path.is_file() else (0, 0)
        offset = 0
        for number, raw in all_lines(path):
            at, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                obj = parse_line(raw)
            except LineProblem as problem:
                hint = None if records or problems.lines else not_json_lines(raw, expects, path)
                if hint:
                    raise InputError(hint, path=str(path), line=number) from None
                problems.add(str(problem), number, problem.field)
                continue
            records += 1
            if record_id is not None:
                ids.append((number, record_id(obj)))
            try:
                made = parse(number, obj)
            except InputError as err:
                problems.add_error(err)
                continue
            if limit is None or len(lines) < limit:
                lines.append(number)
                offsets.append(at)
                kept_bytes += len(raw)
                if kept_bytes > KEPT_BYTES:
                    kept = None  # a large file: each record is read again from disk when reached
                elif kept is not None:
                    kept.append(made)
        if not records and not problems.lines:
            problems.add("the file holds no records (one JSON object per line expected)")
        note_duplicate_ids(ids, problems)
        problems.raise_if_any()
        return cls(path, parse, lines, offsets, stamp, kept)

    def __len__(self) -> int:
        return len(self._lines)

    def at(self, index: int) -> T:
        number, offset = self._lines[index], self._offsets[index]
        self._check_unchanged()
        if self._kept is not None:
            return self._kept[index]
        with self.path.open("rb") as handle:
            handle.seek(offset)
            return self._read(number, handle.readline())

    def __iter__(self) -> Iterator[T]:
        """The records in file order, read sequentially."""
        if not self._lines:
            return
        self._check_unchanged()
        if self._kept is not None:
            yield from self._kept
            return
        wanted, k = self._lines, 0
        for number, raw in numbered_lines(self.path):
            if number == wanted[k]:
                yield self._read(number, raw)
                k += 1
                if k == len(wanted):
                    return

    def _read(self, number: int, raw: bytes) -> T:
        return self._parse(number, parse_line(raw))

    def _check_unchanged(self) -> None:
        if _stamp(self.path) != self._stamp:
            raise InputError("the file changed after it was checked; run the command again", path=str(self.path))

    def __repr__(self) -> str:
        return f"RecordFile({str(self.path)!r}, {len(self)} records)"


def _stamp(path: Path) -> tuple[int, int]:
    status = os.stat(path)
    return status.st_size, status.st_mtime_ns
