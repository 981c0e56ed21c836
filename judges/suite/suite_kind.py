"""The unit-test run kind for the core and the pages (`judgelab.kinds` entry `unit_tests`): its items pass or fail
their conditions, its figures stand beside the baselines' (the best constant judge and the oracle), and it gives
every hook of `judges.runs.kinds`: its tally and part (under `unit_tests` in run.json), its summary.md and
report.html sections, the result matrix, a test's row, its figures beside other runs' and the comparison by pass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from judges.records import ItemRecord, Summary
from judges.runs.kinds import KindTraits
from judges.runs.run_config import RunConfig
from judges.suite.outcome_compare import ByPass, figure_rows, headline, pass_figures
from judges.suite.outcome_markdown import outcome_markdown
from judges.suite.outcome_report import OutcomeRow, entry_headers, entry_row, outcome_tables, result_matrix
from judges.suite.outcome_summary import OutcomeSummary, legacy_part
from judges.suite.outcome_tally import OutcomeTally
from judges.suite.reference import Beside, conclusion, summary_beside
from judges.suite.suite_settings import SuiteSettings

if TYPE_CHECKING:
    from judges.pages.table import Table
    from judges.runs.run import Run


class UnitTestKind(KindTraits):
    """Unit-test runs: pass rates per metric and test type, stability, flips and drift, the result matrix."""

    unit = "test"
    not_passed = ("wrong_grade", "failure")
    filter_words = ("not passed", "Only what did not pass")
    summary_note = (
        "Pass and wrong-grade rates are over the tests that completed; a run failure (a call or parse failure, or a "
        "step\nupstream of it failing) is counted apart, never as a wrong grade. Beside the judge, on the same tests: "
        "the best\nconstant judge (one grade whatever the test) and the oracle (the right grades). Pass-rate intervals "
        "are Wilson score intervals; the\ntotal's is a seeded bootstrap over the completed tests."
    )

    def references(self, summary: Summary, config: RunConfig) -> Sequence[Beside]:
        return summary_beside(summary, config.settings(SuiteSettings.of).baselines)

    def conclusion(self, summary: Summary, config: RunConfig) -> str | None:
        return conclusion(summary_beside(summary, config.settings(SuiteSettings.of).baselines))

    def tally(self) -> OutcomeTally:
        return OutcomeTally()

    def read_part(self, data: Mapping[str, Any]) -> OutcomeSummary:
        return OutcomeSummary.from_json(data)

    def read_legacy_part(self, summary: Mapping[str, Any]) -> OutcomeSummary | None:
        return legacy_part(summary)

    def markdown(self, run: Run) -> list[str]:
        return outcome_markdown(run)

    def report_section(self, run: Run) -> list[tuple[str, Table]]:
        return outcome_tables(run)

    def matrix(self, run: Run) -> Table:
        return result_matrix(run)

    def entry_headers(self, draws: int) -> list[str]:
        return entry_headers(draws)

    def entry_row(self, record: ItemRecord, metric: str, draws: int) -> OutcomeRow:
        return entry_row(record, metric, draws)

    def figures(self, run: Run) -> dict[str, str]:
        return pass_figures(run)

    def compare(self, before: Run, after: Run) -> ByPass:
        return ByPass(before, after)

    def headline(self, summary: Summary) -> tuple[str, float | None, int]:
        return headline(summary)

    def figure_rows(self, summary: Summary, config: RunConfig) -> list[dict[str, Any]]:
        return figure_rows(summary, config)


UNIT_TEST_KIND = UnitTestKind()
