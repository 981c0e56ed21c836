"""The probe run kind's parts for the core (`judgelab.kinds` entry `probes`): its tally, summary part and sections."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.probes.analysis import ProbeTally
from judges.probes.probe_report import HEADERS, probe_item_rows, probe_markdown, probe_tables
from judges.probes.probe_summary import ProbeSummary

if TYPE_CHECKING:
    from judges.pages.item_row import ItemRow
    from judges.pages.table import Table
    from judges.runs.run import Run


class ProbeKind:
    """Probe runs: the pairs' rates per probe and metric, and a row per pair that missed."""

    item_headers = HEADERS
    type_label = "Probe"
    items_heading = (
        "Pairs that missed",
        "Every pair whose grade did not do what its probe declares, with both prompts and replies (the original's "
        "first);\nthe pairs that held are counted in the summary.",
    )

    def tally(self) -> ProbeTally:
        return ProbeTally()

    def read_part(self, data: Mapping[str, Any]) -> ProbeSummary:
        return ProbeSummary.from_json(data)

    def markdown(self, run: Run) -> list[str]:
        return probe_markdown(run)

    def report_section(self, run: Run) -> list[tuple[str, Table]]:
        return probe_tables(run)

    def item_rows(self, run: Run, folder: Path | None) -> list[ItemRow]:
        return probe_item_rows(run, folder)


PROBE_KIND = ProbeKind()
