"""Reading and appending JSON Lines files, with errors that name the file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judges.calls.secrets import scrub
from judges.errors import InputError

DEFAULT_MAX_RECORD_BYTES = 1_000_000  # one record; override with $JUDGELAB_MAX_RECORD_BYTES


class LineProblem(ValueError):
    """One line that is not a JSON object: its message, without file or line."""


def max_record_bytes() -> int:
    """The size limit of one record: $JUDGELAB_MAX_RECORD_BYTES, or 1 MB."""
    text = os.environ.get("JUDGELAB_MAX_RECORD_BYTES", "")
    return int(text) if text.isdigit() else DEFAULT_MAX_RECORD_BYTES


def numbered_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) of each non-blank line; a missing file raises InputError."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=str(path))
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield number, raw


def parse_line(raw: bytes, limit: int | None = None) -> dict[str, Any]:
    """One line as a JSON object; an oversized, non-UTF-8 or malformed line raises LineProblem."""
    limit = max_record_bytes() if limit is None else limit
    if len(raw) > limit:
        raise LineProblem(
            f"record of {len(raw):,} bytes is over the {limit:,}-byte limit (set JUDGELAB_MAX_RECORD_BYTES to raise it)"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LineProblem(
            f"not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1}); save the file as UTF-8"
        ) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise LineProblem(f"not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(obj, dict):
        raise LineProblem("each line must be a JSON object")
    return obj


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line raises InputError."""
    for number, raw in numbered_lines(path):
        try:
            yield number, parse_line(raw)
        except LineProblem as problem:
            raise InputError(str(problem), path=str(path), line=number) from None


def append_jsonl(handle: Any, obj: dict[str, Any]) -> None:
    """Write one object as a line and flush it, so a crash loses nothing already written; secrets are masked."""
    handle.write(json.dumps(scrub(obj), ensure_ascii=False) + "\n")
    handle.flush()
