"""The leaderboard as one self-contained HTML page: a sortable table, the plots inline, links to the run reports."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from judges.leaderboard.columns import named
from judges.leaderboard.entries import Entry
from judges.leaderboard.render import any_plain, cost, interval, latency, pick_row, plain, shown_value, standing
from judges.leaderboard.select import Pick
from judges.pages.page_template import render_page
from judges.pages.table import Row, Table, cell, plain_table

HEADERS = [
    "evaluation",
    "metric",
    "candidate",
    "kind",
    "value",
    "statistic",
    "95% interval",
    "rank [95%], tie group",
    "plain figure (no system control)",
    "n",
    "human ceiling",
    "failure rate",
    "calls",
    "USD / 1k calls",
    "s / uncached call (median)",
]


def _figure_row(e: Entry, report: str | None) -> Row:
    return Row(
        [
            cell(e.evaluation),
            cell(e.metric),
            cell(e.candidate),
            cell(e.kind),
            cell(shown_value(e), e.value if e.value is not None else -1),
            cell(named(e.statistic)),
            cell(interval(e) or None),
            cell(standing(e) or None, e.rank if e.rank is not None else 99),
            cell(plain(e) or None, e.plain_value if e.plain_value is not None else -1),
            cell(e.n),
            cell(e.ceiling),
            cell(e.failure_rate),
            cell(e.calls),
            cell(cost(e), e.cost_per_1k_calls if e.cost_measured else -1),
            cell(latency(e), e.latency_s_per_uncached_call if e.latency_s_per_uncached_call is not None else -1),
        ],
        cls=e.kind,
        data={"report": report} if report else {},
    )


def render_html(
    entries: list[Entry],
    picks: list[Pick],
    meta: dict[str, Any],
    plots: list[Path],
    reports: dict[tuple[str, str], str] | None = None,
) -> str:
    """The page; `reports` maps (candidate, evaluation) to its run report's path relative to the page."""

    reports = reports or {}
    excluded = [
        {"evaluation": p.evaluation, "metric": p.metric, "candidate": name, "why": why}
        for p in picks
        for name, why in p.excluded.items()
    ]
    excluded_table = plain_table("excluded", excluded)
    if not excluded:
        excluded_table = Table("excluded", ["evaluation", "metric", "candidate", "why"], [])
    return render_page(
        "leaderboard.html.jinja",
        meta=meta,
        picks=plain_table("picks", [pick_row(p, any_plain(entries)) for p in picks]),
        excluded=excluded_table,
        figures=Table(
            "leaderboard", HEADERS, [_figure_row(e, reports.get((e.candidate, e.evaluation))) for e in entries]
        ),
        plots=[{"name": p.stem, "data": base64.b64encode(p.read_bytes()).decode()} for p in plots],
    )
