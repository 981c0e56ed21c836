"""report.html of a run: its config, the summary with 95% intervals, the result matrix and every item, as one
self-contained page (no network) rendered from the package's templates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.pages.markdown import pct
from judges.pages.page_template import render_page
from judges.pages.table import Cell, Table, cell, plain_table
from judges.render.report_items import chosen_entries, headers, item_rows
from judges.runs.call_totals import run_call_totals
from judges.runs.consistency_rows import consistency_table
from judges.runs.intervals import first_draw_grades, mean_interval, metric_range, noting_grades
from judges.runs.kinds import kind_of
from judges.runs.run_config import RunConfig
from judges.runs.stops import stop_note

if TYPE_CHECKING:
    from judges.runs.run import Run


def write_report(run: Run, folder: Path) -> Path:
    path = folder / "report.html"
    path.write_text(report_html(run, folder), encoding="utf-8")
    return path


def report_html(run: Run, folder: Path | None = None) -> str:
    """The page; local images are linked relative to `folder` (where the page is written), if given."""

    grades: dict[str, Any] = {}  # the first draw's grades, noted in the one pass that chooses the items shown
    kind = kind_of(run.kind)
    own = kind.item_rows(run, folder)  # a kind that draws its whole item table (probes: a row per pair that missed)
    chosen = chosen_entries(noting_grades(run.iter_records(), grades)) if own is None else None
    if own is not None:
        items, item_headers = own, kind.item_headers
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
        matrix=kind.matrix(run),
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
    own = kind_of(run.kind).report_section(run)  # a kind's own tables (the unit-test kind's pass rates, ...)
    if own is not None:
        return own
    return [("Verdicts per metric", _verdict_summary(run, grades)), *consistency_table(run)]


def _interval(low: float | None, high: float | None, as_rate: bool = True) -> Cell:
    if low is None or high is None:
        return cell(None)
    text = f"[{pct(low)}, {pct(high)}]" if as_rate else f"[{low:.3f}, {high:.3f}]"
    return Cell(text, low)


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
