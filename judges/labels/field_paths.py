"""Field paths into a row: `a.b`, `doc.sentences[0]`, `annotations.*.label` (every element), `const:VALUE`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from judges.errors import ConfigError

_MISSING = object()
CONST = "const:"
_PART = re.compile(r"([^\[\]]*)((?:\[(?:\d+|\*)\])*)")


def tokens(path: str) -> list[str]:
    """`a.b[0].*` -> ["a", "b", "0", "*"]; a ConfigError for a malformed path."""
    out: list[str] = []
    for part in path.split("."):
        match = _PART.fullmatch(part)
        if match is None or not part:
            raise ConfigError(f"field path {path!r}: expected name.name, name[0] or name.*.name")
        if match.group(1):
            out.append(match.group(1))
        out += re.findall(r"\[(\d+|\*)\]", match.group(2))
    return out


def fans_out(path: str) -> bool:
    """Whether the path gives a list of values (it has a `*`)."""
    return not path.startswith(CONST) and "*" in tokens(path)


def _step(value: Any, token: str) -> Any:
    if isinstance(value, Mapping) and token in value:
        return value[token]
    if isinstance(value, (list, tuple)) and token.isdigit() and int(token) < len(value):
        return value[int(token)]
    raise KeyError(token)


def _walk(value: Any, parts: list[str]) -> Any:
    for n, token in enumerate(parts):
        if token == "*":
            elements = value.values() if isinstance(value, Mapping) else value
            if not isinstance(elements, (list, tuple)) and not isinstance(value, Mapping):
                raise KeyError(token)
            return [_walk(element, parts[n + 1 :]) for element in elements]
        value = _step(value, token)
    return value


def get_field(record: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """The value at `path` (a list of values where the path has `*`; the text after `const:` for a constant);
    `default`, or a KeyError, when it is absent. A column whose name holds dots is found by its whole name first."""
    if path.startswith(CONST):
        return path[len(CONST) :]
    if path in record:
        return record[path]
    try:
        return _walk(record, tokens(path))
    except KeyError:
        if default is not _MISSING:
            return default
        raise KeyError(path) from None
