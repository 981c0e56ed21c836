"""The label scale a person uses for each metric: binary or 1-5, and whether a null (not applicable) is allowed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judges.errors import ConfigError
from judges.labels.schema import LabelType


@dataclass(frozen=True)
class LabelScale:
    """The levels offered to the annotator (whole numbers from `low` to `high`), plus null when `allows_null`."""

    label_type: LabelType
    low: int
    high: int
    allows_null: bool

    @property
    def levels(self) -> list[int]:
        return list(range(self.low, self.high + 1))

    @property
    def bounds(self) -> tuple[float, float]:
        return float(self.low), float(self.high)

    def describe(self) -> str:
        kind = "binary 0/1" if self.label_type is LabelType.BINARY else f"{self.low}-{self.high}"
        return kind + (" or null" if self.allows_null else "")


BINARY = LabelScale(LabelType.BINARY, 0, 1, allows_null=False)
# The GroUSE metrics' grades and when each may be null (docs/metrics.md, "How a judge is scored").
SCALES = {
    "faithfulness": LabelScale(LabelType.BINARY, 0, 1, allows_null=True),
    "usefulness": LabelScale(LabelType.BINARY, 0, 1, allows_null=True),
    "answer_relevancy": LabelScale(LabelType.ORDINAL, 1, 5, allows_null=True),
    "completeness": LabelScale(LabelType.ORDINAL, 1, 5, allows_null=True),
}
SPEC = re.compile(r"^(?:(?P<binary>binary)|(?P<low>-?\d+)-(?P<high>\d+))(?P<null>\+null)?$")


def parse_scale(spec: str) -> LabelScale:
    """`binary`, `1-5`, optionally with `+null` (e.g. `1-5+null`)."""
    match = SPEC.match(spec.strip())
    if match is None:
        raise ConfigError(f"--scale: expected binary or LOW-HIGH, optionally +null (e.g. 1-5+null), got {spec!r}")
    allows_null = match["null"] is not None
    if match["binary"]:
        return LabelScale(LabelType.BINARY, 0, 1, allows_null)
    low, high = int(match["low"]), int(match["high"])
    if not low < high <= low + 10:
        raise ConfigError(f"--scale: {spec!r} needs LOW < HIGH and at most 11 levels")
    return LabelScale(LabelType.ORDINAL, low, high, allows_null)


def scale_for(metric: str, spec: str | None = None) -> LabelScale:
    """The scale given by `spec`, else the metric's own; a metric without a known scale needs `--scale`."""
    if spec is not None:
        return parse_scale(spec)
    if metric in SCALES:
        return SCALES[metric]
    raise ConfigError(
        f"no label scale is known for metric {metric!r}: give one with --scale (binary, 1-5, or either +null); "
        f"known: {', '.join(SCALES)}"
    )
