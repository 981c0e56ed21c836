"""Reading and appending JSON Lines files, with errors that name the file and line."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from judges.errors import InputError
from judges.files.checked import DIGITS_AS_ZERO, MAX_DEPTH, decode_error_text, json_type, passes_unwalked
from judges.files.checked import problem as value_problem
from judges.secrets import scrub

DEFAULT_MAX_RECORD_BYTES = 1_000_000  # one record; override with $JUDGELAB_MAX_RECORD_BYTES
REPLIES_PER_RECORD = 16  # a record holds several calls: one judge reply may take this share of its limit
SAMPLE_SHARE = 4  # the judged sample's texts together may take this share of a record's limit (a quarter)
_LONG_INTEGER = b"0" * 19  # 19 digits in a row (DIGITS_AS_ZERO): perhaps a whole number orjson makes a float
KEPT_CHARS = 1_000  # the start of an oversized text (a judge's reply, a sample's field) that its record keeps


class LineProblem(ValueError):
    """One line that is not a usable JSON object: its message and field, without file or line."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def max_record_bytes() -> int:
    """The size limit of one record: $JUDGELAB_MAX_RECORD_BYTES, or 1 MB."""
    text = os.environ.get("JUDGELAB_MAX_RECORD_BYTES", "")
    return int(text) if text.isdigit() else DEFAULT_MAX_RECORD_BYTES


def max_reply_bytes() -> int:
    """The largest judge reply a record keeps whole: a sixteenth of the record limit (62,500 bytes by default)."""
    return max_record_bytes() // REPLIES_PER_RECORD


def oversize(text: str, limit: int) -> int | None:
    """The bytes `text` takes in a record (UTF-8, JSON-escaped) when that is over `limit`; None when it fits (a text
    of at most a sixth of the limit in characters always fits, and is not measured)."""
    if len(text) * 6 <= limit:
        return None
    size = len(json.dumps(text, ensure_ascii=False).encode()) - 2
    return size if size > limit else None


def cut_text(text: str, size: int, what: str, kept: int = KEPT_CHARS) -> str:
    """An oversized text as its record keeps it: its first `kept` characters and a marker naming its size."""
    return f"{text[:kept]} [... truncated by judgelab: the {what} was {size:,} bytes]"


def numbered_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) of each non-blank line; a missing file raises InputError."""
    for number, raw in all_lines(path):
        if raw.strip():
            yield number, raw


def all_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) of every line, blank ones too; a missing file or a folder raises InputError."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, not a file", path=str(path))
    if not path.is_file():
        raise InputError("file not found", path=str(path))
    with path.open("rb") as handle:
        yield from enumerate(handle, start=1)


def parse_line(raw: bytes, limit: int | None = None) -> dict[str, Any]:
    """One line as a JSON object; an oversized, non-UTF-8, malformed or unusable (`checked.problem`) line raises
    LineProblem. orjson reads the line when it surely gives what the standard library would (`_read_fast`); any
    other line, and every line orjson refuses, is read by `json` (its messages, and what only it accepts: `NaN`,
    `1e400`, a lone surrogate escape, a byte-order mark, whole numbers past 64 bits)."""
    limit = max_record_bytes() if limit is None else limit
    if len(raw) > limit:
        raise LineProblem(
            f"record of {len(raw):,} bytes is over the {limit:,}-byte limit (set JUDGELAB_MAX_RECORD_BYTES to raise it)"
        )
    obj = _read_fast(raw)
    if obj is None:
        return read_with_json(raw)
    # orjson refused any lone surrogate and number past a float, so only the depth is left to check
    return _usable_object(obj, raw.count(b"[") + raw.count(b"{") < MAX_DEPTH)


def _read_fast(raw: bytes) -> Any:
    """The line's value through orjson (several times faster than `json` per line), or None where `json` must read
    it: orjson refuses it, or it holds a run of 19 digits (a whole number past 64 bits, which orjson would make a
    float; rare lines, so any such run sends the line to `json`)."""
    if _LONG_INTEGER in raw.translate(DIGITS_AS_ZERO):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def read_with_json(raw: bytes) -> dict[str, Any]:
    """The line read by the standard library's decoder, with its messages."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LineProblem(
            f"not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1}); save the file as UTF-8"
        ) from None
    try:
        obj = json.loads(text)
    except ValueError as err:  # malformed JSON, or a whole number over 4,300 digits that Python will not convert
        raise LineProblem(decode_error_text(err)) from None
    except RecursionError:  # the decoder's own guard; the line's depth is far over the limit
        raise LineProblem(f"nested more than {MAX_DEPTH} levels deep") from None
    return _usable_object(obj, passes_unwalked(text, raw))


def _usable_object(obj: Any, unwalked: bool) -> dict[str, Any]:
    """The line's value when it is an object that `checked.problem` passes (not walked when `unwalked`: the line's
    text shows that it would), else the LineProblem."""
    if not isinstance(obj, dict):
        raise LineProblem(f"each line must be a JSON object, got {json_type(obj)}")
    found = None if unwalked else value_problem(obj)
    if found is not None:
        raise LineProblem(found[1], found[0])
    return obj


NAMED_KINDS = {".toml": "TOML", ".yaml": "YAML", ".yml": "YAML", ".csv": "CSV", ".tsv": "TSV"}


def not_json_lines(raw: bytes, expects: str = "", path: str | Path | None = None) -> str | None:
    """What a file whose first record line `raw` fails to parse holds instead of JSON Lines, when that is clear (one
    JSON document, or a TOML, YAML, CSV or TSV file: by its content, else by its name's ending), as one line ending
    in what is expected; else None."""
    text = raw[:4096].decode("utf-8", "replace").lstrip("\ufeff").strip()
    wanted = f"JSON Lines expected: one JSON object per line{f', with the fields {expects}' if expects else ''}"
    if text == "[" or (text.startswith("[") and text[1:].lstrip().startswith("{")):  # a list of objects
        return f"the file holds a JSON list, not JSON Lines; {wanted}"
    if text == "{" or (text.startswith('{"') and text.endswith(("{", "[", ","))):
        return f"the file holds one JSON document spread over lines, not JSON Lines; {wanted}"
    kind = _kind_by_content(text) or NAMED_KINDS.get(Path(path).suffix.lower() if path else "")
    if kind is None and not text.startswith(("{", "#")) and ("," in text or "\t" in text):
        kind = "TSV" if "\t" in text else "CSV"
    if kind is not None:
        return f"the file looks like {kind} (its first line is {text[:60]!r}), not JSON Lines; {wanted}"
    return None


def _kind_by_content(text: str) -> str | None:
    """TOML or YAML when the first line shows it (a `[table]`, `key = value`; `---`, `key: value`, `- item`)."""
    if re.fullmatch(r"\[\[?[\w.\"' -]+\]\]?", text) or re.match(r"[\w.\"-]+\s*=\s*\S", text):
        return "TOML"
    if text == "---" or re.match(r"[\w.-]+:(\s|$)", text) or text.startswith("- "):
        return "YAML"
    return None


def read_jsonl(path: str | Path, expects: str = "") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line raises InputError (one naming the file's
    format when its first line shows it is not JSON Lines: `not_json_lines`, with the fields `expects` names)."""
    limit = max_record_bytes()
    first = True
    for number, raw in numbered_lines(path):
        try:
            yield number, parse_line(raw, limit)
        except LineProblem as problem:
            hint = not_json_lines(raw, expects, path) if first else None
            if hint:
                raise InputError(hint, path=str(path), line=number) from None
            raise InputError(str(problem), path=str(path), line=number, field=problem.field) from None
        first = False


def append_jsonl(handle: Any, obj: dict[str, Any]) -> None:
    """Write one object as a line and flush it, so a crash loses nothing already written; secrets are masked."""
    handle.write(json.dumps(scrub(obj), ensure_ascii=False) + "\n")
    handle.flush()
