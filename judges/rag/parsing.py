"""Shape checks for the judge's JSON replies: each raises ReplyError (re-asked once, then a failure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judges.judging.replies import ReplyError

_TRUE = {"true", "yes", "1", "supported", "relevant", "pass"}
_FALSE = {"false", "no", "0", "unsupported", "not supported", "irrelevant", "fail"}


def field(obj: Any, name: str) -> Any:
    if not isinstance(obj, dict) or name not in obj:
        raise ReplyError(f"the reply has no {name!r} field")
    return obj[name]


def as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().casefold() in _TRUE | _FALSE:
        return value.strip().casefold() in _TRUE
    raise ReplyError(f"{name} must be true or false, got {value!r}")


def as_text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def string_list(obj: Any, name: str) -> list[str]:
    """obj[name] (or obj itself, when a bare list) as distinct non-blank strings."""
    items = obj if isinstance(obj, list) else field(obj, name)
    if not isinstance(items, list):
        raise ReplyError(f"{name} must be a list")
    texts = [as_text(i) for i in items if not isinstance(i, (dict, list))]
    return list(dict.fromkeys(t for t in texts if t))


def keyed_entries(obj: Any, name: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
    """One dict per key from obj[name]: an object keyed by the keys, or a list in the keys' order."""
    raw = field(obj, name) if isinstance(obj, dict) and name in obj else obj
    if isinstance(raw, list):
        if len(raw) < len(keys):
            raise ReplyError(f"{name} has {len(raw)} entries for {len(keys)} items")
        raw = dict(zip(keys, raw))
    if not isinstance(raw, dict):
        raise ReplyError(f"{name} must be an object keyed by {', '.join(keys)}")
    missing = [k for k in keys if not isinstance(raw.get(k), dict)]
    if missing:
        raise ReplyError(f"{name} has no entry for {', '.join(missing)}")
    return {k: raw[k] for k in keys}


def int_list(value: Any, allowed: range) -> list[int]:
    """The valid integers of a list (others dropped): the passage numbers a verdict cites."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        try:
            number = int(str(item).strip().lstrip("[").rstrip("]"))
        except ValueError:
            continue
        if number in allowed and number not in out:
            out.append(number)
    return out


def reason_schema() -> dict[str, Any]:
    return {"type": "string", "maxLength": 200}


def keyed_object_schema(keys: Sequence[str], entry: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {k: entry for k in keys}, "required": list(keys)}
