"""Run kinds as plug-ins (`judgelab.kinds`): what a kind hands the core beside its task, so that the core and
the pages above it never name one. A kind's object may give its own summary part (a tally as records come, the
part read back from run.json, its sections of summary.md and report.html) and any of the traits of `KindTraits`;
what it leaves out takes the default there (`kind_of` reads each trait in this one place)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from judges.plugins import load, names
from judges.records import ItemRecord, Summary, SummaryPart

if TYPE_CHECKING:
    from judges.pages.item_row import ItemRow
    from judges.pages.table import Table
    from judges.runs.run import Run
    from judges.runs.run_config import RunConfig
    from judges.types import Sample


class Tally(Protocol):
    """Told each first-draw record as it finishes (none is kept); `result()` is the kind's summary part."""

    def add(self, record: ItemRecord) -> None: ...

    def result(self) -> SummaryPart: ...


class RunKindParts(Protocol):
    """A kind's own part: its tally and part, its Markdown lines, its summary tables and item rows for the page."""

    item_headers: list[str]

    def tally(self) -> Tally: ...

    def read_part(self, data: Mapping[str, Any]) -> SummaryPart: ...

    def markdown(self, run: Run) -> list[str]: ...

    def tables(self, run: Run) -> list[tuple[str, Table]]: ...

    def item_rows(self, run: Run, folder: Path | None) -> list[ItemRow]: ...


class Reference(Protocol):
    """A reference figure beside a judge's on one metric (e.g. the best constant judge and the oracle)."""

    @property
    def metric(self) -> str: ...

    @property
    def constant_rate(self) -> float | None: ...

    @property
    def oracle(self) -> float | None: ...

    def cells(self) -> dict[str, str]: ...

    def short(self) -> str: ...


class KindTraits:
    """The traits of a run kind, with the defaults a kind that gives none of them gets (a plug-in kind may
    subclass this, or give any of these attributes on its own object)."""

    unit = "sample"  # what one item is, in the progress line
    # its items pass or fail a condition (records carry outcomes): the summary has pass rates, tests by type and
    # stability over draws; runs are compared by pass (flips, McNemar's test, drift); the report has the matrix
    outcomes = False
    judge_grades = False  # its grades are a judge's (the summary warns of a near-constant judge)
    not_passed: tuple[str, ...] = ("missed", "failure")  # the report's item states that count as not passed
    type_label = "Test type"  # the report's filter over the items' `type`
    labelling = False  # labelling may draw graded items from its runs (their samples read back by `samples`)
    items_heading: tuple[str, str] | None = None  # the report's heading and note (HTML) over its item table, if its own

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Reference]:
        """Reference figures beside the judge's, per metric and "total" (none by default)."""
        return []

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        """The one line on what the figures say against the references (none by default)."""
        return None

    def samples(self, run: Run) -> Mapping[str, Sample] | None:
        """The samples the run graded, for labelling to draw items from (None: labelling may not draw from it)."""
        return None


DEFAULTS = KindTraits()


class Kind:
    """A registered kind read through its traits: each the kind's own when it gives one, else the default."""

    def __init__(self, name: str, registered: object | None) -> None:
        self.name = name
        self.registered = registered

    def _own(self, trait: str) -> Any:
        return getattr(self.registered, trait, getattr(DEFAULTS, trait))

    @property
    def parts(self) -> RunKindParts | None:
        """The kind's own summary part and page sections, when it has them."""
        parts: RunKindParts | None = self.registered if hasattr(self.registered, "tally") else None  # type: ignore[assignment]
        return parts

    @property
    def unit(self) -> str:
        return str(self._own("unit"))

    @property
    def outcomes(self) -> bool:
        return bool(self._own("outcomes"))

    @property
    def judge_grades(self) -> bool:
        return bool(self._own("judge_grades"))

    @property
    def not_passed(self) -> list[str]:
        return list(self._own("not_passed"))

    @property
    def type_label(self) -> str:
        return str(self._own("type_label"))

    @property
    def labelling(self) -> bool:
        return bool(self._own("labelling"))

    @property
    def items_heading(self) -> tuple[str, str] | None:
        heading: tuple[str, str] | None = self._own("items_heading")
        return heading

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Reference]:
        rows: Sequence[Reference] = self._own("references")(summary, config)
        return rows

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        line: str | None = self._own("conclusion")(summary, config)
        return line

    def samples(self, run: Run) -> Mapping[str, Sample] | None:
        found: Mapping[str, Sample] | None = self._own("samples")(run)
        return found


def kind_of(name: str) -> Kind:
    """The kind registered as `name` (a name no package registers gets every default)."""
    return Kind(name, load("kinds", name) if name in names("kinds") else None)


def kind_parts(name: str) -> RunKindParts | None:
    """The registered parts of `name`, or None for a kind the core shows with its own tables."""
    return kind_of(name).parts
