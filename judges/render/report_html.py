"""report.html of a run: its config, the summary with 95% intervals, the result matrix and every item, as one
self-contained page (no network) rendered from the package's templates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.pages.markdown import pct
from judges.pages.page_template import render_page
from judges.pages.table import Cell, Row, Table, cell, plain_table
from judges.render.consistency_rows import consistency_heading, consistency_rows
from judges.render.report_items import chosen_entries, headers, item_rows
from judges.render.sample_rows import first_records
from judges.render.summary_md import rests_on_failures
from judges.runs.call_totals import run_call_totals
from judges.runs.failures import given
from judges.runs.intervals import first_draw_grades, mean_interval, metric_range, noting_grades, total_interval, wilson
from judges.runs.kinds import Kind, kind_of
from judges.runs.run_config import RunConfig
from judges.runs.stops import stop_note
from judges.runs.summarizer import SHORT, metric_names
from judges.types import ALL_METRICS

MAX_MATRIX = 200  # tests in the page's result matrix (all of them are in results.jsonl and the plot)

if TYPE_CHECKING:
    from judges.runs.run import Run
    from judges.types import Verdict


def write_report(run: Run, folder: Path) -> Path:
    path = folder / "report.html"
    path.write_text(report_html(run, folder), encoding="utf-8")
    return path


def report_html(run: Run, folder: Path | None = None) -> str:
    """The page; local images are linked relative to `folder` (where the page is written), if given."""

    grades: dict[str, Any] = {}  # the first draw's grades, noted in the one pass that chooses the items shown
    kind = kind_of(run.kind)
    parts = kind.parts
    chosen = chosen_entries(noting_grades(run.iter_records(), grades)) if parts is None else None
    if parts is not None:
        items, item_headers = parts.item_rows(run, folder), parts.item_headers
    else:
        assert chosen is not None
        items, item_headers = item_rows(run, chosen.entries, folder), headers(run)
    return render_page(
        "report.html.jinja",
        run=run,
        stop=stop_note(run),
        kind=run.kind.replace("_", " "),
        config=config_rows(run.config),
        timing=run.timing,
        calls=run_call_totals(run),
        summary=summary_tables(run, grades if chosen is not None else None),
        conclusion=kind.conclusion(run.summary, run.config),
        traits=kind,
        matrix=result_matrix(run) if kind.outcomes else None,
        headers=item_headers,
        items=items,
        chosen=chosen,
        metrics=sorted({i.data["metric"] for i in items}, key=[i.data["metric"] for i in items].index),
        types=sorted({i.data["type"] for i in items} - {"-"}),
        outcomes=sorted({i.data["outcome"] for i in items}),
        not_passed=kind.not_passed,
    )


def config_rows(config: RunConfig) -> list[tuple[str, Any]]:
    """What produced the run, in reading order: judge, model version, prompts with hashes, data, judgelab."""
    prompts = config.prompts
    rows: list[tuple[str, Any]] = [
        ("judge", config.judge),
        ("LiteLLM model", config.litellm_model),
        ("model version (as the provider reported)", config.model_version or "not reported"),
        ("API base", config.api_base or "-"),
        ("parameters", config.params or {}),
        ("JSON schema output", config.json_schema),
    ]
    if prompts:
        rows += [
            ("prompt set", f"{prompts.get('name')} ({prompts.get('folder')})"),
            ("prompt sha256", prompts["sha256"]),
        ]
    if config.rag_prompts_sha256:
        rows.append(("RAG-suite prompt sha256", config.rag_prompts_sha256))
    rows += [
        ("data", config.data or "-"),
        ("split", config.split or "-"),
        ("draws per test", config.draws if "draws" in config.keys else 1),
    ]
    for key, value in (("metrics", config.metrics), ("embeddings", config.embeddings)):
        if value:
            rows.append((key, value))
    rows += [
        ("cache", config.cache or {}),
        ("budget (USD)", config.max_cost or "none"),
        ("judgelab version", config.judgelab_version),
    ]
    return rows


def summary_tables(run: Run, grades: dict[str, Any] | None = None) -> list[tuple[str, Table]]:
    """The summary's tables; a verdict summary's intervals from `grades` (each metric's first-draw grades) when the
    caller has them, else from a pass over the records."""
    kind = kind_of(run.kind)
    if kind.outcomes:
        return _unit_test_summary(run, kind)
    parts = kind.parts
    if parts is not None:
        return parts.tables(run)
    return [("Verdicts per metric", _verdict_summary(run, grades)), *_consistency_table(run)]


def _consistency_table(run: Run) -> list[tuple[str, Table]]:
    """With --draws K: per metric, how often the verdict changed and the judge's agreement with itself."""
    consistency = run.summary.consistency
    if consistency is None:
        return []
    return [(consistency_heading(consistency), plain_table("consistency", consistency_rows(consistency)))]


def _interval(low: float | None, high: float | None, as_rate: bool = True) -> Cell:
    if low is None or high is None:
        return cell(None)
    text = f"[{pct(low)}, {pct(high)}]" if as_rate else f"[{low:.3f}, {high:.3f}]"
    return Cell(text, low)


def _rate(value: float | None) -> Cell:
    return Cell(pct(value), value if value is not None else -1)


def _unit_test_summary(run: Run, kind: Kind) -> list[tuple[str, Table]]:
    summary = run.summary
    references = {row.metric: row for row in kind.references(summary, run.config)}

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
    total = summary.total_pass_rate
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
    tables = [("Pass rates", plain_table("summary", rows)), *_consistency_table(run)]
    by_type = [
        {
            "test type": t,
            "n": s.n,
            **{SHORT.get(m, m): _rate(v) for m, v in s.pass_rates.items()},
            "total": _rate(s.total),
            "run failures": s.failures,
        }
        for t, s in summary.by_test_type.items()
    ]
    if by_type:
        tables.append(("By test type", plain_table("by-type", by_type)))
    repeats = summary.stability
    if repeats is not None:
        stability = [
            {"metric": m, "mean grade variance": s.mean_grade_variance, "pass/fail flip rate": pct(s.flip_rate)}
            for m, s in repeats.metrics.items()
        ]
        tables.append(
            (f"Stability ({repeats.draws} draws of {repeats.tests} tests)", plain_table("stability", stability))
        )
    return tables


def _verdict_summary(run: Run, grades: dict[str, Any] | None) -> Table:
    info = run.config.metric_info or {}
    grades = first_draw_grades(run.iter_records()) if grades is None else grades
    rows = []
    for metric, s in run.summary.metrics.items():
        about = info.get(metric, {})
        rows.append(
            {
                "metric": metric,
                "family": about.get("family", "-"),
                "better": ("higher" if about["higher_is_better"] else "lower") if about else "-",
                "mean": s.mean,
                "95% interval (bootstrap)": _interval(
                    *mean_interval(grades.get(metric, ()), metric_range(metric, about)), as_rate=False
                ),
                "graded": s.graded,
                "null": s.null,
                "not applicable": s.not_applicable,
                "failed": f"{s.failed}" + "".join(f", {k} {v}" for k, v in s.failure_kinds.items()),
                "n": s.n,
            }
        )
    return plain_table("summary", rows)


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
