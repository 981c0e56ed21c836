"""What a `JudgeConfig` field says beside its type: how it reads on the command line (`Cli`) and its range."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cli:
    """How a field reads on the command line: its help, and a flag name or metavar when not derived from the field;
    for a switch, the flag that turns it off (`off`, else `--no-field-name`); for a value given as text, how that text
    is read (`parse`, applied to the flag's text only, before the model checks it; its error is the one line)."""

    help: str
    metavar: str | None = None
    flag: str | None = None  # default: --field-name
    group: str = "judge"  # the help section: "judge" or "runtime" (or a command's own)
    off: tuple[str, str] | None = None  # a switch's off flag and its help, e.g. ("--lower-is-better", "...")
    parse: Callable[[str], Any] | None = None  # the flag's text to the field's value, e.g. "1,5" -> (1.0, 5.0)


Range = tuple[Callable[[float], bool], str]  # a number field's check, and what a bad value hears


def in_range(ranges: dict[str, Range], field: str | None, value: float | None) -> float | None:
    """`value` when it passes its field's check in `ranges` (None, where a field allows it, is no limit); else the
    ValueError a settings model turns into one line naming the field."""
    if value is not None and not ranges[str(field)][0](value):
        raise ValueError(ranges[str(field)][1])
    return value


RANGES: dict[str, Range] = {  # a number field: its check, and what a bad value hears
    "concurrency": (lambda v: v >= 1, "must be at least 1"),
    "max_attempts": (lambda v: v >= 1, "must be at least 1"),
    "ray_workers": (lambda v: v >= 1, "must be at least 1"),
    "executor_window": (lambda v: v >= 1, "must be at least 1"),
    "image_max_side": (lambda v: v >= 16, "must be at least 16 pixels"),
    "timeout_s": (lambda v: v > 0, "must be a positive number of seconds"),
    "max_cost": (lambda v: v > 0, "must be a positive number of USD"),
    "rpm": (lambda v: v > 0, "must be positive"),
    "tpm": (lambda v: v > 0, "must be positive"),
    "fail_on_error": (lambda v: 0 <= v <= 1, "must be a share between 0 and 1"),
}
