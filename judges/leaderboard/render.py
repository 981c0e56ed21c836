"""Leaderboard files: Markdown, CSV (pandas), JSON, and the cost-versus-agreement plots with their Pareto fronts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.leaderboard.entries import Entry
from judges.leaderboard.select import Pick


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def interval(entry: Entry) -> str:
    return "" if entry.ci_low is None else f"[{entry.ci_low:.3f}, {entry.ci_high:.3f}]"


def markdown(entries: list[Entry], picks: list[Pick], meta: dict[str, Any]) -> str:
    lines = [f"# judgelab leaderboard", "", f"Generated {meta['date']} by judgelab {meta['judgelab_version']} from "
             f"`{meta['config']}`. Figures with 95% intervals and the n they rest on; baselines are references.", "",
             "## Best judge per evaluation and metric", "",
             "| evaluation | metric | statistic | best judge | value | 95% interval | why |", "|---|---|---|---|---|---|---|"]
    for pick in picks:
        best = pick.winner
        lines.append(f"| {pick.evaluation} | {pick.metric} | {pick.statistic} | {best.candidate if best else '-'} | "
                     f"{_fmt(best.value) if best else '-'} | {interval(best) if best else ''} | {pick.reason()} |")
    lines += ["", "## All figures", "",
              "| evaluation | metric | candidate | kind | value | 95% interval | n | human ceiling | failure rate | "
              "calls | USD / 1k calls | s / call |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: (e.evaluation, e.metric, -(e.value if e.value is not None else -9))):
        lines.append(f"| {e.evaluation} | {e.metric} | {e.candidate} | {e.kind} | {_fmt(e.value)} | {interval(e)} | "
                     f"{e.n} | {_fmt(e.ceiling)} | {_fmt(e.failure_rate)} | {e.calls} | {e.cost_per_1k_calls:.4f} | "
                     f"{e.seconds_per_call:.2f} |")
    lines += ["", "## Judges", "", "| candidate | kind | model | prompts | prompt hash |", "|---|---|---|---|---|"]
    seen = set()
    for e in entries:
        if e.candidate not in seen:
            seen.add(e.candidate)
            lines.append(f"| {e.candidate} | {e.kind} | {e.model or '-'} | {e.prompts or '-'} | {e.prompt_sha or '-'} |")
    lines += ["", "## Data", ""] + [f"- {name}: {info}" for name, info in meta["data"].items()]
    return "\n".join(lines) + "\n"


def write_tables(entries: list[Entry], picks: list[Pick], meta: dict[str, Any], out: Path) -> list[Path]:
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([e.to_dict() for e in entries])
    frame.to_csv(out / "leaderboard.csv", index=False)
    payload = {"meta": meta, "picks": [{"evaluation": p.evaluation, "metric": p.metric, "statistic": p.statistic,
                                        "best": p.winner.candidate if p.winner else None, "why": p.reason(),
                                        "tied": p.tied, "excluded": p.excluded} for p in picks],
               "entries": [e.to_dict() for e in entries]}
    (out / "leaderboard.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    (out / "leaderboard.md").write_text(markdown(entries, picks, meta), encoding="utf-8")
    return [out / "leaderboard.csv", out / "leaderboard.json", out / "leaderboard.md"]


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats on both axes (lower x, higher y)."""
    front = []
    for i, (x, y) in enumerate(points):
        if not any((x2 <= x and y2 >= y) and (x2, y2) != (x, y) for x2, y2 in points):
            front.append(i)
    return sorted(front, key=lambda i: points[i][0])


def plot_pareto(entries: list[Entry], evaluation: str, metric: str, path: Path) -> Path | None:
    """Cost (or, when every judge is free, seconds) per call against the figure, the front highlighted."""
    group = [e for e in entries if e.evaluation == evaluation and e.metric == metric and e.value is not None
             and e.kind != "baseline"]
    if not group:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_cost = any(e.cost_per_1k_calls > 0 for e in group)
    points = [(e.cost_per_1k_calls if by_cost else e.seconds_per_call, float(e.value)) for e in group]  # type: ignore[arg-type]
    front = pareto_front(points)
    fig, ax = plt.subplots(figsize=(6, 4))
    for entry, (x, y) in zip(group, points):
        low = y - entry.ci_low if entry.ci_low is not None else 0
        high = entry.ci_high - y if entry.ci_high is not None else 0
        ax.errorbar([x], [y], yerr=[[low], [high]], fmt="o", capsize=3)
        ax.annotate(entry.candidate, (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
    ax.plot([points[i][0] for i in front], [points[i][1] for i in front], "--", color="grey", label="Pareto front")
    ax.set_xlabel("USD per 1,000 calls" if by_cost else "seconds per call (every judge here is free)")
    ax.set_ylabel(f"{group[0].statistic} ({metric})")
    ax.set_title(f"{evaluation}: {metric}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
