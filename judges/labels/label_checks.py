"""What a label measures, and the checks of a label and its scale."""

from __future__ import annotations

import functools
import math
from enum import Enum
from typing import Any

from judges.files.checked import LARGEST_NUMBER, too_large
from judges.files.jsonl import LineProblem

Checked = tuple[float, tuple[float, float]]  # a label and its scale
_NUMBERS = (int, float)


class LabelType(str, Enum):
    """What a label measures, which decides the agreement statistics."""

    BINARY = "binary"  # 0 or 1 (1 = the good outcome, e.g. faithful)
    ORDINAL = "ordinal"  # integers on a scale, e.g. 1..5
    CONTINUOUS = "continuous"  # any number on a scale, e.g. a mean of annotators in [0, 1]
    PREFERENCE = "preference"  # pairwise: < 0 prefers answer a (`actual_output`), > 0 answer b, 0 a tie


_CONTINUOUS = LabelType.CONTINUOUS


def check_label(label_type: LabelType, label: float, scale: tuple[float, float]) -> str | None:
    """Why `label` is not a valid label of this type and scale, or None."""
    lo, hi = scale
    if not lo <= label <= hi:
        return f"label {label:g} is outside the scale [{lo:g}, {hi:g}]"
    if label_type is LabelType.BINARY and label not in (0, 1):
        return f"a binary label is 0 or 1, got {label:g}"
    if label_type is LabelType.ORDINAL and not float(label).is_integer():
        return f"an ordinal label is a whole number, got {label:g}"
    return None


def check_scale(label_type: LabelType, scale: tuple[float, float]) -> str | None:
    """Why `scale` does not suit the label type, or None."""
    lo, hi = scale
    if lo >= hi:
        return "the low end of the scale must be below the high end"
    if label_type is LabelType.BINARY and (lo, hi) != (0, 1):
        return "a binary scale is [0, 1]"
    if label_type is LabelType.ORDINAL and not (float(lo).is_integer() and float(hi).is_integer()):
        return "an ordinal scale runs between whole numbers"
    if label_type is LabelType.PREFERENCE and not lo < 0 < hi:
        return "a preference scale has 0 (a tie) inside it, e.g. [-2, 2]"
    return None


def default_scale(label_type: LabelType) -> tuple[float, float] | None:
    return (0.0, 1.0) if label_type is LabelType.BINARY else None


@functools.lru_cache(maxsize=64)
def shared_scale(low: float, high: float) -> tuple[float, float]:
    """One tuple per scale, shared by every label on it (a million labels would hold a million copies)."""
    return low, high


@functools.lru_cache(maxsize=64, typed=True)
def usual_scale(label_type: LabelType, low: float | None, high: float | None) -> tuple[float, float] | None:
    """The shared scale of a label type and its given ends (None: absent) when it passes `check_scale`, else None
    (a million labels share a few scales: each checked once)."""
    scale = default_scale(label_type) if low is None or high is None else (low, high)
    if scale is None:
        return None
    scale = shared_scale(float(scale[0]), float(scale[1]))
    return None if check_scale(label_type, scale) else scale


@functools.lru_cache(maxsize=256, typed=True)
def usual_label(label_type: LabelType, label: float, low: float | None, high: float | None) -> Checked | None:
    """A label and scale (None: absent) passing every check of `label_on_scale` (the label as a float), else None
    (a million labels take a few values: each checked once; a million distinct ones only check the label)."""
    if (isinstance(label, int) and abs(label) > LARGEST_NUMBER) or not math.isfinite(label):
        return None
    scale = usual_scale(label_type, low, high)
    if scale is None or check_label(label_type, float(label), scale):
        return None
    return float(label), scale  # one float per label value, shared by every label of it


def label_on_scale(record: dict[str, Any], label_type: LabelType) -> Checked:
    """The record's label, a finite number, and its scale (the label type's default when absent), checked together;
    a LineProblem names the field at fault."""
    label, given = record["label"], record.get("scale", ())  # () when absent (a null scale is not absent)
    plain = given == () or (
        type(given) is list and len(given) == 2 and type(given[0]) in _NUMBERS and type(given[1]) in _NUMBERS
    )
    if plain and type(label) is float and label_type is _CONTINUOUS:  # distinct values, each checked here
        scale = usual_scale(label_type, *(given or (None, None)))
        if scale is not None and scale[0] <= label <= scale[1]:  # NaN is in no range, infinity in no scale
            return label, scale
    elif plain and type(label) in _NUMBERS and (usual := usual_label(label_type, label, *(given or (None, None)))):
        return usual
    if isinstance(label, bool):
        raise LineProblem(f"expected a number, got the boolean {str(label).lower()}", "label")
    if not isinstance(label, (int, float)):
        raise LineProblem(f"expected a number, got {label!r}", "label")
    if isinstance(label, int) and abs(label) > LARGEST_NUMBER:
        raise LineProblem(too_large(label), "label")
    if not math.isfinite(label):
        raise LineProblem(f"expected a finite number, got {label}", "label")
    scale = record.get("scale", default_scale(label_type))
    if (
        not isinstance(scale, (list, tuple))
        or len(scale) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in scale)
    ):
        raise LineProblem("expected [low, high]", "scale")
    scale = shared_scale(float(scale[0]), float(scale[1]))
    if problem := check_scale(label_type, scale):
        raise LineProblem(problem, "scale")
    if problem := check_label(label_type, float(label), scale):
        raise LineProblem(problem, "label")
    return label, scale
