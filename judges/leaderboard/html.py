"""The leaderboard as one self-contained HTML page: a sortable table, the plots inline, the run's metadata."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from judges.leaderboard.columns import named
from judges.leaderboard.entries import Entry
from judges.leaderboard.render import interval, latency, pick_row, shown_value
from judges.leaderboard.select import Pick

SORT_SCRIPT = r"""
document.querySelectorAll('table.sortable th').forEach(th => th.addEventListener('click', () => {
  const column = th.cellIndex, table = th.closest('table'), body = table.tBodies[0];
  const ascending = th.dataset.order !== 'asc';
  table.querySelectorAll('th').forEach(h => delete h.dataset.order);
  th.dataset.order = ascending ? 'asc' : 'desc';
  const key = row => { const cell = row.cells[column]; const v = cell.dataset.value ?? cell.textContent;
                       const n = parseFloat(v); return isNaN(n) ? v : n; };
  [...body.rows].sort((a, b) => { const x = key(a), y = key(b);
    return (x > y ? 1 : x < y ? -1 : 0) * (ascending ? 1 : -1); }).forEach(r => body.appendChild(r));
}));
// `#sort=N` in the address sorts by column N on load (handy for links and for the page's own test)
const wanted = location.hash.match(/sort=(\d+)/);
if (wanted) document.querySelectorAll('#leaderboard th')[Number(wanted[1])]?.click();
"""
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.85rem; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.5rem; text-align: left; }
th { background: #f0f0f0; cursor: pointer; }
th[data-order=asc]::after { content: ' \\25B2'; } th[data-order=desc]::after { content: ' \\25BC'; }
tr.baseline { color: #777; } img { max-width: 48%; margin: 0.5rem; border: 1px solid #eee; }
"""


def _cell(value: Any, sort_value: Any = None) -> str:
    shown = "n/a" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))
    key = (
        ""
        if sort_value is None and value is None
        else f' data-value="{html.escape(str(sort_value if sort_value is not None else value))}"'
    )
    return f"<td{key}>{html.escape(shown)}</td>"


def render_html(entries: list[Entry], picks: list[Pick], meta: dict[str, Any], plots: list[Path]) -> str:
    headers = [
        "evaluation",
        "metric",
        "candidate",
        "kind",
        "value",
        "statistic",
        "95% interval",
        "n",
        "human ceiling",
        "failure rate",
        "calls",
        "USD / 1k calls",
        "s / uncached call (median)",
    ]
    rows = []
    for e in entries:
        rows.append(
            f'<tr class="{e.kind}">'
            + "".join(
                [
                    _cell(e.evaluation),
                    _cell(e.metric),
                    _cell(e.candidate),
                    _cell(e.kind),
                    _cell(shown_value(e), e.value if e.value is not None else -1),
                    _cell(named(e.statistic)),
                    _cell(interval(e) or None),
                    _cell(e.n),
                    _cell(e.ceiling),
                    _cell(e.failure_rate),
                    _cell(e.calls),
                    _cell(round(e.cost_per_1k_calls, 4)),
                    _cell(
                        latency(e), e.latency_s_per_uncached_call if e.latency_s_per_uncached_call is not None else -1
                    ),
                ]
            )
            + "</tr>"
        )
    pick_headers = list(pick_row(picks[0])) if picks else []
    pick_rows = "".join("<tr>" + "".join(_cell(v) for v in pick_row(p).values()) + "</tr>" for p in picks)
    excluded_rows = "".join(
        f"<tr>{_cell(p.evaluation)}{_cell(p.metric)}{_cell(name)}{_cell(why)}</tr>"
        for p in picks
        for name, why in p.excluded.items()
    )
    images = "".join(
        f'<img alt="{html.escape(p.stem)}" src="data:image/png;base64,{base64.b64encode(p.read_bytes()).decode()}">'
        for p in plots
    )
    judges = "".join(
        f"<li><b>{html.escape(name)}</b>: {html.escape(info)}</li>" for name, info in meta["judges"].items()
    )
    data = "".join(f"<li>{html.escape(name)}: {html.escape(info)}</li>" for name, info in meta["data"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>judgelab leaderboard</title><style>{STYLE}</style></head>
<body>
<h1>judgelab leaderboard</h1>
<p>Generated {html.escape(meta["date"])} by judgelab {html.escape(meta["judgelab_version"])} from
<code>{html.escape(meta["config"])}</code>. Click a column header to sort. Baselines are references and never win;
a judge is named best only when it beats the best baseline (a paired bootstrap on the same items where per-item values
exist, else its 95% interval's lower bound above the baseline's figure); ties go to the cheaper, then the faster by
median latency per uncached call. A negative correlation or an AUROC below 0.5 never wins.</p>
<h2>Best judge per evaluation and metric</h2>
<table id="picks" class="sortable"><thead><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in pick_headers)}</tr></thead>
<tbody>{pick_rows}</tbody></table>
<h2>Excluded candidates and why</h2>
<table id="excluded" class="sortable"><thead><tr><th>evaluation</th><th>metric</th><th>candidate</th><th>why</th></tr>
</thead><tbody>{excluded_rows}</tbody></table>
<h2>All figures</h2>
<table id="leaderboard" class="sortable"><thead><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in headers)}</tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<h2>Cost versus agreement</h2>{images}
<h2>Judges</h2><ul>{judges}</ul>
<h2>Data</h2><ul>{data}</ul>
<script>{SORT_SCRIPT}</script>
</body></html>
"""
