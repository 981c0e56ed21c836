"""A label as a number: text labels through `--label-map`, true/false only for binary labels, never a non-finite
number or one beyond the float range."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from judges.errors import ConfigError, InputError
from judges.files.checked import too_large
from judges.labels.schema import LabelType


def parse_label_map(text: str | None) -> dict[str, float]:
    """`--label-map "Fully attributable=1,Generic=0,yes=1,no=0"`: text labels to numbers (the last `=` splits)."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, number = part.rpartition("=")
        try:
            if not sep or not name.strip() or not math.isfinite(float(number)):
                raise ValueError
            out[name.strip()] = float(number)
        except ValueError:
            raise ConfigError(f"--label-map: expected TEXT=NUMBER, got {part!r}") from None
    return out


def label_number(
    value: Any, label_values: Mapping[str, float], label_type: LabelType, *, path: str, line: int, field: str
) -> float:
    """A row's label as a number, or a one-line InputError naming the file, line and column."""
    if isinstance(value, str) and value.strip() in label_values:
        return float(label_values[value.strip()])
    if isinstance(value, bool):
        if label_type is LabelType.BINARY:
            return float(value)
        kind = f"({label_type.value} labels are numbers)"
        raise InputError(
            f"expected a number, got the boolean {json.dumps(value)} {kind}", path=path, line=line, field=field
        )
    try:
        number = float(value)
    except OverflowError:
        raise InputError(too_large(value), path=path, line=line, field=field) from None
    except (TypeError, ValueError):
        known = f" (known text labels: {', '.join(label_values)})" if label_values else ""
        hint = known or "; map text labels with --label-map TEXT=NUMBER,..."
        raise InputError(f"expected a number, got {value!r}{hint}", path=path, line=line, field=field) from None
    if math.isnan(number):
        raise InputError("the label is missing (NaN)", path=path, line=line, field=field)
    if not math.isfinite(number):
        raise InputError(f"expected a finite number, got {number}", path=path, line=line, field=field)
    return number
