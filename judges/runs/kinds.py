"""Run kinds as plug-ins (`judgelab.kinds`): what a kind hands the core beside its task, so that the core never
imports one: a tally that makes the kind's part of the summary as records come, that part read back from run.json,
and the kind's sections of summary.md and report.html."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from judges.plugins import load, names
from judges.records import ItemRecord, SummaryPart

if TYPE_CHECKING:
    from judges.pages.item_row import ItemRow
    from judges.pages.table import Table
    from judges.runs.run import Run


class Tally(Protocol):
    """Told each first-draw record as it finishes (none is kept); `result()` is the kind's summary part."""

    def add(self, record: ItemRecord) -> None: ...

    def result(self) -> SummaryPart: ...


class RunKindParts(Protocol):
    """A kind's parts: its tally and part, its Markdown lines, its summary tables and item rows for the page."""

    item_headers: list[str]

    def tally(self) -> Tally: ...

    def read_part(self, data: Mapping[str, Any]) -> SummaryPart: ...

    def markdown(self, run: Run) -> list[str]: ...

    def tables(self, run: Run) -> list[tuple[str, Table]]: ...

    def item_rows(self, run: Run, folder: Path | None) -> list[ItemRow]: ...


def kind_parts(kind: str) -> RunKindParts | None:
    """The registered parts of `kind`, or None for a kind the core shows with its own tables."""
    if kind not in names("kinds"):
        return None
    parts: RunKindParts = load("kinds", kind)
    return parts
