"""The one check of a parsed input value against what later stages need: text that UTF-8 can encode, sane nesting.

Every loader (JSONL lines, whole JSON files, dataset rows, TOML configs) runs its parsed value through `problem`
before it is used, so a lone surrogate (`"\\ud800"`) or a thousand-deep list is refused at load with the file, line
and field, never met by the HTTP client, the cache or a recursive walk in the middle of a run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from judges.errors import InputError

MAX_DEPTH = 64  # lists and objects inside each other; judgelab's own formats use fewer than ten levels
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the JSON escape of a UTF-16 surrogate, \ud800-\udfff
LARGEST_NUMBER = sys.float_info.max  # a number read as a grade, label or setting becomes a float: none is larger
# a whole number beyond LARGEST_NUMBER has at least 309 digits: sought as a run of b"0" in the UTF-8 bytes with
# every ASCII digit made b"0" (several times faster than the regular expression [0-9]{309}; no other byte is b"0",
# a multi-byte character's bytes are never ASCII)
DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 309


def problem(value: Any) -> tuple[str | None, str] | None:
    """The first (field path, message) that makes `value` unusable, or None. Walks without recursion."""
    stack: list[tuple[Any, str | None, int]] = [(value, None, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            found = _text_problem(item)
            if found:
                return where, found
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > LARGEST_NUMBER:
            return where, too_large(item)
        elif isinstance(item, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                return where, f"nested more than {MAX_DEPTH} levels deep"
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str) and _text_problem(key):
                    return where, f"key {key.encode('utf-8', 'backslashreplace').decode()!r}: {_text_problem(key)}"
                stack.append((child, f"{where}.{key}" if where else str(key), depth + 1))
    return None


def passes_unwalked(text: str, raw: bytes | None = None) -> bool:
    """Whether JSON text decoded strictly from UTF-8 (from `raw`, if given) surely parses into a value `problem`
    passes, so the walk can be skipped: a lone surrogate can only come from a `\\ud800`-`\\udfff` escape (the strict
    decoder refuses any other), and MAX_DEPTH levels of nesting need as many brackets, and a number beyond
    LARGEST_NUMBER as many digits. A run reads its own records back this way."""
    return (
        text.count("[") + text.count("{") < MAX_DEPTH
        and _SURROGATE_ESCAPE.search(text) is None
        and _LONG_RUN not in (text.encode("utf-8") if raw is None else raw).translate(DIGITS_AS_ZERO)
    )


def too_large(number: int) -> str:
    """Why a whole number beyond LARGEST_NUMBER is refused (it has no float: no grade, label or setting can hold it)."""
    try:
        digits = f"{len(str(abs(number))):,}"
    except ValueError:  # more digits than Python converts to text
        digits = "more than 4,300"
    return f"a number of {digits} digits is too large (the largest is about {LARGEST_NUMBER:.3g})"


def decode_error_text(err: ValueError) -> str:
    """The line for text the JSON decoder refused: its own position for malformed JSON, else the reason (a whole
    number longer than Python converts, 4,300 digits)."""
    if isinstance(err, json.JSONDecodeError):
        return json_error_text(err)
    if "integer string conversion" in str(err):
        return f"a number of more than 4,300 digits is too large (the largest is about {LARGEST_NUMBER:.3g})"
    return f"not valid JSON ({str(err).splitlines()[0][:200]})"


def _text_problem(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return (
            f"text holds a lone surrogate \\u{ord(text[err.start]):04x} at character {err.start + 1}, which no "
            "request can carry; replace the escape with the character it stands for"
        )
    return None


def check(value: Any, *, path: str | None = None, line: int | None = None) -> None:
    """Raise one InputError naming the file, line and field where `value` cannot be used."""
    found = problem(value)
    if found is not None:
        field, message = found
        raise InputError(message, path=path, line=line, field=field)


def id_problem(value: Any) -> str | None:
    """Why a record's `id` cannot be an id (it must be a string or an integer), or None."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"expected a string or an integer, got {json_type(value)}"
    return None


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type: object, list, string, number, true/false, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return names.get(type(value), type(value).__name__)


def json_error_text(err: json.JSONDecodeError) -> str:
    """ "not valid JSON (Expecting value, column 29)"; `err.msg` never holds the position itself."""
    return f"not valid JSON ({err.msg}, column {err.colno})"


def read_json_file(path: str | Path) -> Any:
    """A whole JSON file, parsed and checked; a missing file, a folder, bad text or bad JSON is one InputError."""
    path = Path(path)
    if path.is_dir():
        raise InputError("is a directory, not a file", path=str(path))
    if not path.is_file():
        raise InputError("file not found", path=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start + 1}); save the file as UTF-8", path=str(path)) from None
    except json.JSONDecodeError as err:
        raise InputError(json_error_text(err), path=str(path), line=err.lineno) from None
    except ValueError as err:  # a whole number over 4,300 digits, which Python will not convert
        raise InputError(decode_error_text(err), path=str(path)) from None
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", path=str(path)) from None
    check(data, path=str(path))
    return data
