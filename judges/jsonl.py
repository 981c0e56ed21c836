"""Reading and appending JSON Lines files, with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from judges.calls.secrets import scrub
from judges.errors import InputError


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line raises InputError."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=str(path))
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as err:
                raise InputError(f"not valid JSON ({err.msg} at column {err.colno})", path=str(path), line=number) from None
            if not isinstance(obj, dict):
                raise InputError("each line must be a JSON object", path=str(path), line=number)
            yield number, obj


def append_jsonl(handle: Any, obj: dict[str, Any]) -> None:
    """Write one object as a line and flush it, so a crash loses nothing already written; secrets are masked."""
    handle.write(json.dumps(scrub(obj), ensure_ascii=False) + "\n")
    handle.flush()
