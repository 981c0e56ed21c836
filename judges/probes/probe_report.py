"""The probe run's figures as Markdown (summary.md) and as tables and item rows for report.html."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.pages.item_row import ItemRow
from judges.pages.markdown import pct, table
from judges.pages.table import Cell, Table, cell, plain_table
from judges.probes.probe_settings import ProbeSettings
from judges.probes.probe_summary import ProbeRow, ProbeSummary
from judges.render.report_items import MAX_ROWS, call_view
from judges.render.report_prompts import PromptRenderer

if TYPE_CHECKING:
    from judges.runs.run import Run

MAX_LISTED = 40
MUST = {"same": "stay", "swapped": "swap", "lower": "go lower", "not higher": "never go higher"}
EXPLAINED = (
    "Invariance: the share of pairs whose grade stayed (for swap_answers: traded places with answer 1's). "
    "Sensitivity: the share of pairs whose grade went lower, over pairs whose original grade could go lower. "
    "Bias (never higher): the share of pairs whose grade did not go up, over pairs whose original could go up. "
    "Failed calls are counted apart, never as a miss. The oracle does what each probe declares; a constant judge "
    "(the same grade for everything) is perfectly invariant and never sensitive, so an invariance rate means "
    "little unless the sensitivity rates are well above the constant's 0%."
)


def _interval(row: ProbeRow) -> str:
    return "n/a" if row.low is None else f"[{pct(row.low)}, {pct(row.high)}]"


def probe_rows(run: Run) -> list[ProbeRow]:
    part = run.summary.part
    return part.rows if isinstance(part, ProbeSummary) else []


def plan_of(run: Run) -> dict[str, Any]:
    """What the probes made of the samples (run.json's config `probe_plan`): per probe, applied and skips by reason."""
    return run.config.settings(ProbeSettings.of).probe_plan


def items_line(run: Run) -> str:
    """What the run's items are: the samples as they are, and each probe's perturbed copies."""
    plan = plan_of(run)
    if not plan:
        return ""
    applied = plan.get("applied", {})
    copies = sum(applied.values())
    each = ", ".join(f"{name} {count}" for name, count in applied.items())
    return (
        f"The {plan.get('samples', 0) + copies} items are {plan.get('samples', 0)} samples judged as they are and "
        f"{copies} perturbed copies ({each}); each copy is paired with its sample. A probe applies only where what it "
        "declares holds by construction: the skips below say why it did not."
    )


def coverage_rows(run: Run) -> list[dict[str, Any]]:
    """Per probe: the samples it applied to, those it skipped, and the skips by reason."""
    plan = plan_of(run)
    skipped = plan.get("skipped", {})
    return [
        {
            "probe": name,
            "applied": count,
            "skipped": sum(skipped.get(name, {}).values()),
            "why skipped (samples)": "; ".join(f"{why} ({n})" for why, n in skipped.get(name, {}).items()) or "-",
        }
        for name, count in plan.get("applied", {}).items()
    ]


def probe_markdown(run: Run) -> list[str]:
    rows = probe_rows(run)
    lines = [items_line(run), ""] if plan_of(run) else []
    lines += [EXPLAINED, "", table([_figures(row, str) for row in rows]) if rows else "No probe applied to any sample."]
    if plan_of(run):
        lines += ["", "## Where each probe applied", "", table(coverage_rows(run))]
    missed = [(row, m) for row in rows for m in row.missed]
    misses = sum(row.misses for row in rows)
    if missed:
        lines += ["", f"## Pairs that missed ({misses})", ""]
        lines.append(
            table(
                [
                    {
                        "probe": row.probe,
                        "metric": row.metric,
                        "original": m.original,
                        "before": m.before,
                        "after": m.after,
                    }
                    for row, m in missed[:MAX_LISTED]
                ]
            )
        )
        if misses > MAX_LISTED:
            lines += ["", f"And {misses - MAX_LISTED} more: {shown_on_page(misses)}."]
    return lines


def _figures(row: ProbeRow, wrap: Any) -> dict[str, Any]:
    """One probe x metric row; `wrap` turns the rate into a cell (str for Markdown, a sortable Cell for HTML)."""
    return {
        "probe": row.probe,
        "metric": row.metric,
        "measures": row.measures,
        "grade must": MUST[row.expects],
        "rate": wrap(pct(row.rate)) if wrap is str else Cell(pct(row.rate), row.rate if row.rate is not None else -1),
        "95% interval (Wilson)": _interval(row),
        "n": row.n,
        "failed": row.failed,
        "oracle": pct(row.oracle),
        "constant judge": pct(row.constant),
    }


def probe_tables(run: Run) -> list[tuple[str, Table]]:
    rows = probe_rows(run)
    tables = [("Probes (per probe and metric)", plain_table("probes", [_figures(row, Cell) for row in rows]))]
    if plan_of(run):
        plan = plan_of(run)
        samples, copies = plan.get("samples", 0), sum(plan.get("applied", {}).values())
        title = (
            f"Where each probe applied (the {samples + copies} items: {samples} samples as they are, {copies} "
            "perturbed copies; a probe skips where what it declares would not hold by construction)"
        )
        tables.append((title, plain_table("probe-skips", coverage_rows(run))))
    return tables


HEADERS = ["original", "probe", "metric", "grade must", "before", "after", "outcome"]


def shown_on_page(misses: int) -> str:
    """Where the pairs missed are listed: report.html (the first MAX_ROWS of them) and results.jsonl."""
    if misses <= MAX_ROWS:
        return "see report.html"
    return f"report.html lists the first {MAX_ROWS}, results.jsonl holds every item"


def probe_item_rows(run: Run, folder: Path | None = None) -> list[ItemRow]:
    """A row per pair that missed, the first MAX_ROWS of them (the summary's order): both items' prompts and replies
    for that metric, the original's first; the records of those pairs alone are kept from one pass."""

    prompts = PromptRenderer(run.config)
    listed = list(itertools.islice(((row, m) for row in probe_rows(run) for m in row.missed), MAX_ROWS))
    wanted = {i for _, m in listed for i in (m.original, m.perturbed)}
    by_id = {r.id: r for r in run.iter_records() if r.draw == 0 and r.id in wanted}
    rows = []
    for row, m in listed:
        before, after = by_id.get(m.original), by_id.get(m.perturbed)
        if before is None or after is None:
            continue
        calls = []
        for label, record in (("original", before), (row.probe, after)):
            entry = record.metrics.get(row.metric)
            for call in entry.calls if entry else []:
                view = call_view(call, prompts, record.sample, reask=False)
                calls.append(dataclasses.replace(view, template=f"{label}: {view.template}"))
        cells = [
            cell(m.original),
            cell(row.probe),
            cell(row.metric),
            cell(MUST[row.expects]),
            cell(m.before),
            cell(m.after),
            Cell("missed", "missed", "wrong_grade"),
        ]
        data = {"outcome": "missed", "metric": row.metric, "type": row.probe}
        rows.append(ItemRow(cells, data, calls, None, after.sample))
    return rows
