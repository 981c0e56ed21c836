"""Reading a TOML config file, with one-line errors that name the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from judges.errors import ConfigError


def read_toml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
