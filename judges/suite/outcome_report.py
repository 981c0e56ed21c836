"""report.html's unit-test parts (the kind's `report_section`, `matrix` and `entry_row` hooks): pass rates with
their 95% intervals beside the baselines, by test type, stability; the result matrix; a test's row per metric."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judges.pages.markdown import pct
from judges.pages.table import Cell, Row, Table, cell, plain_table
from judges.records import ItemRecord
from judges.runs.consistency_rows import consistency_table
from judges.runs.failures import given, reason
from judges.runs.intervals import wilson
from judges.runs.summarizer import SHORT, first_records, metric_names
from judges.suite.outcome_markdown import rests_on_failures
from judges.suite.outcome_summary import outcomes_of
from judges.suite.pass_interval import total_interval
from judges.suite.reference import summary_beside
from judges.suite.suite_settings import SuiteSettings
from judges.types import ALL_METRICS, Outcome, VerdictState

if TYPE_CHECKING:
    from judges.runs.run import Run
    from judges.types import Verdict

MAX_MATRIX = 200  # tests in the page's result matrix (all of them are in results.jsonl and the plot)
OUTCOME_LABELS = {"pass": "pass", "wrong_grade": "wrong grade", "failure": "failure"}


def _interval(low: float | None, high: float | None) -> Cell:
    return cell(None) if low is None or high is None else Cell(f"[{pct(low)}, {pct(high)}]", low)


def _rate(value: float | None) -> Cell:
    return Cell(pct(value), value if value is not None else -1)


def outcome_tables(run: Run) -> list[tuple[str, Table]]:
    """The page's summary: pass rates per metric and in total, the consistency over draws, by test type, stability."""
    summary = run.summary
    part = outcomes_of(summary.part)
    references = {row.metric: row for row in summary_beside(summary, run.config.settings(SuiteSettings.of).baselines)}

    def reference_cells(metric: str) -> dict[str, Cell]:
        row = references.get(metric)
        if row is None:
            return {}
        return {"best constant": Cell(row.short(), row.constant_rate), "oracle": _rate(row.oracle)}

    rows: list[dict[str, Any]] = [
        {
            "metric": metric,
            "pass rate": _rate(s.pass_rate),
            **reference_cells(metric),
            "95% interval": _interval(*wilson(s.passed or 0, s.completed or 0)),
            "passed": s.passed,
            "wrong grades": s.wrong_grades,
            "run failures": s.failures,
            "completed": s.completed,
            "n": s.n,
        }
        for metric, s in summary.metrics.items()
    ]
    complete = all(m in summary.metrics for m in ALL_METRICS)
    per_metric = summary.metrics.values()
    rests = rests_on_failures(summary)
    total = part.total_pass_rate
    rows.append(  # every count in one unit: test x metric outcomes, the sums of the rows above
        {
            "metric": "total (mean of the pass rates; counts are test x metric outcomes)"
            + (f" † {rests}" if rests else ""),
            "pass rate": Cell(pct(total) + (" †" if rests else ""), total if total is not None else -1),
            **reference_cells("total"),
            "95% interval": _interval(*total_interval(r for r in run.iter_records() if r.draw == 0))
            if complete
            else cell(None),
            "passed": sum(s.passed or 0 for s in per_metric),
            "wrong grades": sum(s.wrong_grades or 0 for s in per_metric),
            "run failures": sum(s.failures or 0 for s in per_metric),
            "completed": sum(s.completed or 0 for s in per_metric),
            "n": sum(s.n for s in per_metric),
        }
    )
    tables = [("Pass rates", plain_table("summary", rows)), *consistency_table(run)]
    by_type = [
        {
            "test type": t,
            "n": s.n,
            **{SHORT.get(m, m): _rate(v) for m, v in s.pass_rates.items()},
            "total": _rate(s.total),
            "run failures": s.failures,
        }
        for t, s in part.by_test_type.items()
    ]
    if by_type:
        tables.append(("By test type", plain_table("by-type", by_type)))
    repeats = part.stability
    if repeats is not None:
        stability = [
            {"metric": m, "mean grade variance": s.mean_grade_variance, "pass/fail flip rate": pct(s.flip_rate)}
            for m, s in repeats.metrics.items()
        ]
        tables.append(
            (f"Stability ({repeats.draws} draws of {repeats.tests} tests)", plain_table("stability", stability))
        )
    return tables


def _short(verdict: Verdict) -> str:
    return "failed" if verdict.is_failure else given(verdict)


def result_matrix(run: Run) -> Table:
    """Tests (first draw, the first MAX_MATRIX in item order) x metrics: the grade given, coloured by outcome."""
    records = first_records(run.iter_records(), MAX_MATRIX)
    metrics = list(run.summary.metrics) or metric_names(records)
    rows = []
    for record in records:
        cells = [cell(record.id)]
        for metric in metrics:
            entry = record.metrics.get(metric)
            if entry is None:
                cells.append(cell("-"))
            else:
                cells.append(Cell(_short(entry.verdict), None, entry.outcome.value if entry.outcome else ""))
        rows.append(Row(cells))
    return Table("matrix", ["test", *(SHORT.get(m, m) for m in metrics)], rows)


def entry_headers(draws: int) -> list[str]:
    """The item table's headers: a test's row per metric, its condition and outcome."""
    draw = ["draw"] if draws > 1 else []
    return ["test", *draw, "test type", "metric", "grade expected", "grade given", "outcome", "reason"]


@dataclass
class OutcomeRow:
    """A test's row of the item table for one metric (its sample is the test's: not shown under it)."""

    cells: list[Cell]
    data: dict[str, str]
    shows_sample: bool = False


def entry_row(record: ItemRecord, metric: str, draws: int) -> OutcomeRow:
    entry = record.metrics[metric]
    verdict = entry.verdict
    outcome = entry.outcome.value if entry.outcome else "-"
    shown = OUTCOME_LABELS.get(outcome, outcome)
    if entry.outcome is Outcome.FAILURE:
        shown = f"failure: {verdict.failure_kind.value if verdict.failure_kind else None}"
    cells = [
        cell(record.id),
        *([cell(record.draw)] if draws > 1 else []),
        cell(record.test_type or "-"),
        cell(metric),
        cell(entry.condition or "-"),
        cell(given(verdict), verdict.grade if verdict.state is VerdictState.GRADE else -1.0),
        Cell(shown, outcome, outcome),
        Cell(reason(entry), None, "justification"),
    ]
    return OutcomeRow(cells, {"outcome": outcome, "metric": metric, "type": record.test_type or "-"})
