"""Run kinds as plug-ins (`judgelab.kinds`): what a kind hands the core beside its task, so that the core and
the pages above it never name one. A kind's object may give its own summary part (a tally as records come, the
part read back from run.json, its sections of summary.md and report.html) and any of the traits of `KindTraits`;
what it leaves out takes the default there (`kind_of` reads each trait in this one place)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from judges.plugins import load, names
from judges.records import ItemRecord, MetricRecord, Summary, SummaryPart

if TYPE_CHECKING:
    from judges.pages.item_row import ItemRow
    from judges.pages.table import Cell, Table
    from judges.runs.run import Run
    from judges.runs.run_config import RunConfig
    from judges.types import Sample


class Tally(Protocol):
    """Told each first-draw record as it finishes (none is kept); `result()` is the kind's summary part. A tally may
    also give `add_draw(record)`, told every record of every draw first, and `summarize(common)`, the run's summary
    from the figures every run has (`common`: counts, usage, consistency); without it the summary is `common` with
    the part (and no consistency)."""

    def add(self, record: ItemRecord) -> None: ...

    def result(self) -> SummaryPart: ...


class RunKindParts(Protocol):
    """A kind's own part: its tally and part, its Markdown lines, its summary tables and item rows for the page."""

    item_headers: list[str]

    def tally(self) -> Tally: ...

    def read_part(self, data: Mapping[str, Any]) -> SummaryPart: ...

    def markdown(self, run: Run) -> list[str]: ...

    def report_section(self, run: Run) -> list[tuple[str, Table]]: ...

    def item_rows(self, run: Run, folder: Path | None) -> list[ItemRow]: ...


class Comparison(Protocol):
    """How two runs of one kind compare item by item (a kind's `compare(before, after)`; by grade by default)."""

    rate: bool  # an item's value is a pass (1.0) or a miss (0.0): shown as rates, with McNemar's test

    def values(self, run: Run, metric: str) -> dict[str, float]: ...

    def state(self, entry: MetricRecord) -> str: ...

    def flipped(self, old: str, new: str) -> bool: ...

    def title(self, changed: Sequence[tuple[str, str, str, str]]) -> str: ...

    def lines(self, before_name: str, after_name: str) -> list[str]: ...


class EntryRow(Protocol):
    """A kind's row of the report's item table for one item and metric: its cells, its filter data, and whether
    the item's sample is shown under it."""

    cells: list[Cell]
    data: dict[str, str]
    shows_sample: bool


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
    judge_grades = False  # its grades are a judge's (the summary warns of a near-constant judge)
    not_passed: tuple[str, ...] = ("missed", "failure")  # the report's item states that count as not passed
    type_label = "Test type"  # the report's filter over the items' `type`
    labelling = False  # labelling may draw graded items from its runs (their samples read back by `samples`)
    items_heading: tuple[str, str] | None = None  # the report's heading and note (HTML) over its item table, if its own
    summary_note: str | None = None  # the report's note (HTML) under its summary tables, if any
    filter_words: tuple[str, str] = ("failed", "Only failures")  # the report's not-passed filter and its button

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Reference]:
        """Reference figures beside the judge's, per metric and "total" (none by default)."""
        return []

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        """The one line on what the figures say against the references (none by default)."""
        return None

    def samples(self, run: Run) -> Mapping[str, Sample] | None:
        """The samples the run graded, for labelling to draw items from (None: labelling may not draw from it)."""
        return None

    # the hooks a kind with its own figures and pages gives (None: the core's own, by verdicts and grades)
    def markdown(self, run: Run) -> list[str] | None:
        """summary.md's lines on the kind's figures."""
        return None

    def report_section(self, run: Run) -> list[tuple[str, Table]] | None:
        """report.html's summary tables, each with its heading."""
        return None

    def matrix(self, run: Run) -> Table | None:
        """report.html's result matrix (items x metrics)."""
        return None

    def entry_headers(self, draws: int) -> list[str] | None:
        """The headers of report.html's item table when the kind gives each row (`entry_row`)."""
        return None

    def entry_row(self, record: ItemRecord, metric: str, draws: int) -> EntryRow | None:
        """One row of report.html's item table (the core adds the calls and details below it)."""
        return None

    def figures(self, run: Run) -> dict[str, str] | None:
        """The run's figures in a comparison of runs side by side (None: each metric's mean grade)."""
        return None

    def compare(self, before: Run, after: Run) -> Comparison | None:
        """How two runs of this kind compare item by item (None: by grade)."""
        return None

    def headline(self, summary: Summary) -> tuple[str, float | None, int] | None:
        """The run's one figure in the viewer's index, as a rate: its name, its value and the failed verdicts
        (None: the first metric's mean grade)."""
        return None

    def figure_rows(self, summary: Summary, config: RunConfig) -> list[dict[str, Any]] | None:
        """The viewer's table of the run's figures (None: each metric's mean grade and verdict counts)."""
        return None


DEFAULTS = KindTraits()


class Kind:
    """A registered kind read through its traits: each the kind's own when it gives one, else the default."""

    def __init__(self, name: str, registered: object | None) -> None:
        self.name = name
        self.registered = registered

    def _own(self, trait: str) -> Any:
        return getattr(self.registered, trait, getattr(DEFAULTS, trait))

    def _hook(self, name: str) -> Any:
        """The kind's own hook `name`, or None when it gives none."""
        return getattr(self.registered, name, None)

    def tally(self) -> Tally | None:
        """The kind's tally of its own figures, when it has them."""
        own = self._hook("tally")
        return None if own is None else own()  # type: ignore[no-any-return]

    @property
    def item_headers(self) -> list[str]:
        return list(self._hook("item_headers") or [])

    def item_rows(self, run: Run, folder: Path | None) -> list[ItemRow] | None:
        """The kind's whole item table, when it draws it itself (probes: a row per pair that missed)."""
        own = self._hook("item_rows")
        return None if own is None else own(run, folder)  # type: ignore[no-any-return]

    def markdown(self, run: Run) -> list[str] | None:
        return self._own("markdown")(run)  # type: ignore[no-any-return]

    def report_section(self, run: Run) -> list[tuple[str, Table]] | None:
        return self._own("report_section")(run)  # type: ignore[no-any-return]

    def matrix(self, run: Run) -> Table | None:
        return self._own("matrix")(run)  # type: ignore[no-any-return]

    def entry_headers(self, draws: int) -> list[str] | None:
        return self._own("entry_headers")(draws)  # type: ignore[no-any-return]

    def entry_row(self, record: ItemRecord, metric: str, draws: int) -> EntryRow | None:
        return self._own("entry_row")(record, metric, draws)  # type: ignore[no-any-return]

    def figures(self, run: Run) -> dict[str, str] | None:
        return self._own("figures")(run)  # type: ignore[no-any-return]

    def compare(self, before: Run, after: Run) -> Comparison | None:
        return self._own("compare")(before, after)  # type: ignore[no-any-return]

    def headline(self, summary: Summary) -> tuple[str, float | None, int] | None:
        return self._own("headline")(summary)  # type: ignore[no-any-return]

    def figure_rows(self, summary: Summary, config: RunConfig) -> list[dict[str, Any]] | None:
        return self._own("figure_rows")(summary, config)  # type: ignore[no-any-return]

    @property
    def unit(self) -> str:
        return str(self._own("unit"))

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

    @property
    def summary_note(self) -> str | None:
        note: str | None = self._own("summary_note")
        return note

    @property
    def filter_words(self) -> tuple[str, str]:
        words: tuple[str, str] = self._own("filter_words")
        return words

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Reference]:
        rows: Sequence[Reference] = self._own("references")(summary, config)
        return rows

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        line: str | None = self._own("conclusion")(summary, config)
        return line

    def samples(self, run: Run) -> Mapping[str, Sample] | None:
        found: Mapping[str, Sample] | None = self._own("samples")(run)
        return found

    def summarize(self, tally: Tally, common: Summary) -> Summary:
        """The run's summary from the kind's tally and the figures every run has (the tally's own `summarize`)."""
        own = getattr(tally, "summarize", None)
        if own is not None:
            summary: Summary = own(common)
            return summary
        return dataclasses.replace(common, consistency=None, part=tally.result())


def kind_of(name: str) -> Kind:
    """The kind registered as `name` (a name no package registers gets every default)."""
    return Kind(name, load("kinds", name) if name in names("kinds") else None)
