"""Leaderboard files: Markdown, CSV (pandas), JSON, and the cost-versus-agreement plots with their Pareto fronts."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from judges.leaderboard.columns import SYSTEM_AWARE, named, oriented
from judges.leaderboard.entries import Entry
from judges.leaderboard.select import NO_WINNER, Pick
from judges.pages.markdown import grid


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def interval(entry: Entry) -> str:
    return "" if entry.ci_low is None else f"[{entry.ci_low:.3f}, {entry.ci_high:.3f}]"


def shown_value(entry: Entry) -> str:
    """The value, or `n/a (why)`."""
    return _fmt(entry.value) if entry.value is not None else f"n/a ({entry.note or 'no figure'})"


def latency(entry: Entry) -> str:
    if entry.latency_s_per_uncached_call is not None:
        return f"{entry.latency_s_per_uncached_call:.2f}"
    if entry.kind == "baseline":
        return "n/a (no model call)"
    if entry.kind == "predictions" or not entry.cost_measured:
        return "not measured"
    return "n/a (no uncached call recorded)"


def cost(entry: Entry) -> str:
    """USD per 1,000 calls, or `not measured` for predictions made elsewhere whose source records no cost."""
    return f"{entry.cost_per_1k_calls:.4f}" if entry.cost_measured else "not measured"


def plain(entry: Entry) -> str:
    """The plain figure shown beside a system-aware one (`spearman 0.580`), or empty."""
    return f"{entry.plain_statistic} {_fmt(entry.plain_value)}" if entry.plain_statistic else ""


def pick_row(pick: Pick, with_plain: bool = False) -> dict[str, str]:
    """The columns of one pick, shared by the Markdown and HTML tables; `with_plain` adds the plain figure beside
    a system-aware one (when some evaluation's labels name systems)."""
    best = pick.winner
    base = pick.baseline
    system_aware = [s for s in pick.statistic.split(" / ") if s in SYSTEM_AWARE]
    decided = pick.test or "-"
    if system_aware and pick.test:
        decided = f"{' / '.join(system_aware)} (system-aware), {pick.test}"
    row = {
        "evaluation": pick.evaluation,
        "metric": pick.metric,
        "statistic": " / ".join(named(s) for s in pick.statistic.split(" / ")),
        "best judge": best.candidate if best else NO_WINNER if pick.reference else "-",
        "value": _fmt(best.value) if best else "-",
        "95% interval": interval(best) if best else "",
    }
    if with_plain:
        row["plain figure"] = plain(best) if best else ""
    return row | {
        "best baseline": f"{base.candidate} {_fmt(base.value)}" if base else "n/a (no baseline with a figure)",
        "decided by": decided,
        "why": pick.reason(),
    }


def any_plain(entries: list[Entry]) -> bool:
    return any(e.plain_statistic for e in entries)  # some evaluation's labels name systems


def markdown(entries: list[Entry], picks: list[Pick], meta: dict[str, Any]) -> str:
    lines = [
        "# judgelab leaderboard",
        "",
        f"Generated {meta['date']} by judgelab {meta['judgelab_version']} from "
        f"`{meta['config']}`. Figures with 95% intervals and the n they rest on. A judge is named best only "
        "when it beats the best baseline (a paired bootstrap on the same items where both rest on them, "
        "else its 95% interval's lower bound above the baseline's figure); ties go to the cheaper, then the "
        "faster by median latency per uncached call. A negative correlation or an AUROC below 0.5 never wins.",
        "",
        "## Best judge per evaluation and metric",
        "",
    ]
    with_plain = any_plain(entries)
    if picks:
        rows = [pick_row(p, with_plain) for p in picks]
        lines.append(grid(list(rows[0]), [list(row.values()) for row in rows]))
    lines += ["", "## Excluded candidates and why", ""]
    excluded = [[p.evaluation, p.metric, name, why] for p in picks for name, why in p.excluded.items()]
    lines.append(grid(["evaluation", "metric", "candidate", "why"], excluded))
    lines += ["", "## All figures", ""]
    figures = []
    for e in sorted(
        entries, key=lambda e: (e.evaluation, e.metric, -oriented(e.statistic, e.value) if e.value is not None else 9)
    ):
        ceiling = (
            _fmt(e.ceiling)
            if e.ceiling is not None
            else "n/a (one annotator per item)"
            if e.evaluation.startswith("labels")
            else "n/a (no human labels)"
        )
        failure = _fmt(e.failure_rate) if e.failure_rate is not None else "n/a (no verdicts)"
        figures.append(
            [
                e.evaluation,
                e.metric,
                e.candidate,
                e.kind,
                named(e.statistic),
                shown_value(e),
                interval(e),
                *([plain(e)] if with_plain else []),
                e.n,
                ceiling,
                failure,
                e.calls,
                cost(e),
                latency(e),
            ]
        )
    lines.append(
        grid(
            [
                "evaluation",
                "metric",
                "candidate",
                "kind",
                "statistic",
                "value",
                "95% interval",
                *(["plain figure"] if with_plain else []),
                "n",
                "human ceiling",
                "failure rate",
                "calls",
                "USD / 1k calls",
                "s / uncached call (median)",
            ],
            figures,
        )
    )
    noted = [e for e in entries if e.note and e.value is not None]
    if noted:
        lines += ["", "## Notes on figures", ""]
        lines += [f"- {e.candidate} on {e.evaluation} ({e.metric}): {e.note}" for e in noted]
    lines += ["", "## Judges", ""]
    what = meta.get("judges", {})
    judges = {
        e.candidate: [e.candidate, e.kind, e.model or "-", e.prompts or "-", e.prompt_sha or "-"] for e in entries
    }
    judges = {name: [*row, what.get(name, "-")] for name, row in judges.items()}
    lines.append(grid(["candidate", "kind", "model", "prompts", "prompt hash", "what it is"], list(judges.values())))
    lines += ["", "## Data", ""] + [f"- {name}: {info}" for name, info in meta["data"].items()]
    return "\n".join(lines) + "\n"


def pick_dict(pick: Pick) -> dict[str, Any]:
    return {
        "evaluation": pick.evaluation,
        "metric": pick.metric,
        "statistic": pick.statistic,
        "best": pick.winner.candidate if pick.winner else None,
        "why": pick.reason(),
        "decided_by": pick.test,
        "best_baseline": pick.baseline.candidate if pick.baseline else None,
        "reference": pick.reference,
        "leader": pick.leader.candidate if pick.leader else None,
        "tied": pick.tied,
        "excluded": pick.excluded,
    }


def write_tables(entries: list[Entry], picks: list[Pick], meta: dict[str, Any], out: Path) -> list[Path]:
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([e.to_dict(item_values=False) for e in entries])
    frame.to_csv(out / "leaderboard.csv", index=False)
    payload = {"meta": meta, "picks": [pick_dict(p) for p in picks], "entries": [e.to_dict() for e in entries]}
    (out / "leaderboard.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    (out / "leaderboard.md").write_text(markdown(entries, picks, meta), encoding="utf-8")
    return [out / "leaderboard.csv", out / "leaderboard.json", out / "leaderboard.md"]


def plot_filename(evaluation: str, metric: str) -> str:
    """`pareto_<evaluation>_<metric>.png` with only letters, digits, `-`, `_` and `.`, and a short hash so that
    two names that clean to the same text stay apart."""
    text = f"{evaluation}_{metric}"
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:80]
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"pareto_{clean}_{digest}.png"


def safe_plot_path(path: Path, evaluation: str, metric: str) -> Path:
    """`path` when its name is safe and its folder exists; else `plot_filename` in the nearest existing folder
    (a caller that pasted an evaluation name holding "/" into the file name gets a flat, safe file)."""
    if re.fullmatch(r"[A-Za-z0-9._-]+", path.name) and path.parent.is_dir():
        return path
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder / plot_filename(evaluation, metric)


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats on both axes (lower x, higher y)."""
    front = []
    for i, (x, y) in enumerate(points):
        if not any((x2 <= x and y2 >= y) and (x2, y2) != (x, y) for x2, y2 in points):
            front.append(i)
    return sorted(front, key=lambda i: points[i][0])


def _x_axis(group: list[Entry]) -> tuple[str, str]:
    """Which speed or cost goes on the x axis: cost when any judge costs, else latency per uncached call."""
    if any(e.cost_per_1k_calls > 0 for e in group):
        return "cost", "USD per 1,000 calls"
    if all(e.latency_s_per_uncached_call is not None for e in group):
        return "latency", "median seconds per uncached call (every judge here is free)"
    return "wall", "run seconds per call (latency per uncached call not recorded; a warm cache looks fast)"


def plot_pareto(entries: list[Entry], evaluation: str, metric: str, path: Path) -> Path | None:
    """Cost (or speed) per call against the figure, the front of the candidates drawn, baselines as lines."""
    rows = [e for e in entries if e.evaluation == evaluation and e.metric == metric and e.value is not None]
    group = [e for e in rows if e.kind != "baseline"]
    baselines = [e for e in rows if e.kind == "baseline"]
    if not group and not baselines:
        return None
    if group and not any(e.cost_measured or e.latency_s_per_uncached_call is not None for e in group):
        return None  # predictions made elsewhere: neither cost nor speed was measured, so there is no trade-off
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = safe_plot_path(path, evaluation, metric)
    axis, label = _x_axis(group)
    field = {"cost": "cost_per_1k_calls", "latency": "latency_s_per_uncached_call", "wall": "seconds_per_call"}[axis]
    points = [(float(getattr(e, field)), float(oriented(e.statistic, e.value))) for e in group]  # type: ignore[arg-type]
    front = pareto_front(points)
    fig, ax = plt.subplots(figsize=(6, 4))
    for entry, (x, _) in zip(group, points):
        y = float(entry.value or 0.0)  # plotted entries all have a value
        low = y - entry.ci_low if entry.ci_low is not None else 0
        high = entry.ci_high - y if entry.ci_high is not None else 0
        ax.errorbar([x], [y], yerr=[[low], [high]], fmt="o", capsize=3)
        ax.annotate(entry.candidate, (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
    if len(front) >= 2:
        ax.plot(
            [points[i][0] for i in front],
            [float(group[i].value or 0.0) for i in front],
            "--",
            color="grey",
            label="Pareto front",
        )
    elif front:
        ax.plot(
            [points[front[0]][0]],
            [float(group[front[0]].value or 0.0)],
            "s",
            mfc="none",
            ms=12,
            color="grey",
            label="Pareto front (one judge)",
        )
    for entry in baselines:
        ax.axhline(
            float(entry.value or 0.0),
            linestyle=":",
            color="tab:red" if not entry.is_oracle else "tab:green",
            linewidth=1,
            label=f"baseline {entry.candidate} ({entry.value:.3f})",
        )
    ax.set_xlabel(label)
    statistics = sorted({e.statistic for e in rows})
    ax.set_ylabel(f"{' / '.join(named(s) for s in statistics)}", fontsize=8)
    ax.set_title(f"{evaluation}: {metric}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
