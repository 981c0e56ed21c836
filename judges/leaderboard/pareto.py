"""The leaderboard's cost-versus-agreement plots with their Pareto fronts (matplotlib)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from judges.leaderboard.columns import named, oriented
from judges.leaderboard.entries import Entry


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
