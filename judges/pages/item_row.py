"""The row types of a run's item table (a row, the calls behind it, its images): plain data every layer may name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.pages.table import Cell


@dataclass(frozen=True)
class CallView:
    """One call as the report shows it: what was sent (when it can be rendered again) and the raw reply."""

    template: str
    about: str
    prompt: str | None
    reply: str | None
    problem: str | None


@dataclass(frozen=True)
class ItemRow:
    """One row of the item table: its cells, its data attributes (for filters), the calls, steps, sample and images."""

    cells: list[Cell]
    data: dict[str, str]
    calls: list[CallView] = field(default_factory=list)
    steps: Any = None
    sample: Mapping[str, Any] | None = None
    images: list[Thumbnail] = field(default_factory=list)


@dataclass(frozen=True)
class Thumbnail:
    """An image of the item's sample as the page shows it: a link to the file or URL (never its bytes)."""

    src: str | None  # None: a data URL of the data file, which the page does not repeat
    label: str
