"""Reading a TOML config file into a pydantic model, with one-line errors that name the file, the key and a fix."""

from __future__ import annotations

import difflib
import tomllib
import typing
from pathlib import Path
from typing import Any, TypeVar

import typing_extensions

from judges.errors import ConfigError
from judges.files.checked import MAX_DEPTH, problem
from judges.files.toml_lines import key_line
from judges.secrets import scrub_text

Model = TypeVar("Model")


def read_toml(path: str | Path) -> dict[str, Any]:
    """The parsed file, its values checked by `checked.problem` (sane nesting); each failure one ConfigError line."""

    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, not a config file")
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start + 1}); save the config as UTF-8") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except ValueError:  # a whole number over 4,300 digits, which Python will not convert
        raise ConfigError(f"{path}: a number of more than 4,300 digits is too large") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep") from None
    found = problem(data)
    if found is not None:
        raise ConfigError(f"{path}: {found[0] or 'top level'}: {found[1]}")
    return data


def number_pair(value: Any) -> Any:
    """A pair of numbers as TOML writes it, `[1, 5]`, `[1.0, 5.0]` or `"1,5"` (as on the command line), made the
    tuple a strict model field takes; anything else is left for the field to refuse in its own words."""
    if isinstance(value, str) and value.count(",") == 1:
        try:
            return tuple(float(part) for part in value.split(","))
        except ValueError:
            return value
    return tuple(value) if isinstance(value, list) else value


def validate_config(model: type[Model], data: dict[str, Any], path: str | Path) -> Model:
    """`model.model_validate(data)`; each pydantic error becomes one ConfigError line naming the file and key."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)  # type: ignore[attr-defined, no-any-return]
    except ValidationError as err:
        lines = []
        for found in err.errors(include_url=False):
            line = _line_of(path, tuple(found["loc"]))
            lines.append(f"{path}{f':{line}' if line else ''}: {describe_problem(model, dict(found))}")
        raise ConfigError("\n".join(dict.fromkeys(lines))) from None


def _line_of(path: str | Path, loc: tuple[Any, ...]) -> int | None:
    """The line of the file where the key at `loc` is written (None when not found)."""

    try:
        return key_line(Path(path).read_text(encoding="utf-8"), loc)
    except (OSError, UnicodeDecodeError):
        return None


def describe_problem(model: type, problem: dict[str, Any]) -> str:
    """One pydantic error as `where: what`, with the nearest valid key for an unknown one."""
    loc = tuple(problem["loc"])
    where = location(loc)
    kind = problem["type"]
    if kind == "extra_forbidden":
        valid = sorted(keys_at(model, loc[:-1]))
        near = difflib.get_close_matches(str(loc[-1]), valid, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}?" if near else f"expected one of {', '.join(valid)}"
        return f"unknown key {where!r}; {hint}"
    if kind == "missing":
        return f"missing key {where!r}"
    shown = scrub_text(repr(problem.get("input")))  # masked before the cut: an api_base's credentials never shown
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    message = problem["msg"].removeprefix("Value error, ")
    return f"{where or 'top level'}: {message[:1].lower()}{message[1:]}, got {shown}"


def location(loc: tuple[Any, ...]) -> str:
    """`candidates[0].params.temprature` from pydantic's ('candidates', 0, 'params', 'temprature')."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def keys_at(model: Any, loc: tuple[Any, ...]) -> set[str]:
    """The keys a table at `loc` may hold, walking field types (models, TypedDicts, lists, optionals)."""
    current = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int):
            args = typing.get_args(current)
            current = args[0] if args else Any
            continue
        fields = _fields(current)
        current = fields.get(part, Any)
    return set(_fields(_unwrap(current)))


def _unwrap(kind: Any) -> Any:
    """The table type inside `X | None`, `list[X]` is kept (its index comes next in the location)."""
    args = typing.get_args(kind)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


def _fields(kind: Any) -> dict[str, Any]:
    if hasattr(kind, "model_fields"):
        return {name: info.annotation for name, info in kind.model_fields.items()}
    if typing_extensions.is_typeddict(kind):
        return dict(typing.get_type_hints(kind))
    return {}
