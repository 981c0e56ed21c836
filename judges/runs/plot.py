"""The result-matrix plot of a run: unit tests x metrics, coloured pass / wrong grade / format failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.runs.summary import SHORT

COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "format_failure": "#9e9e9e"}


def plot_result_matrix(rows: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    order = list(COLOURS)
    metrics = list(SHORT)
    grid = [[order.index(row["metrics"][m]["outcome"]) for m in metrics] for row in rows]
    height = min(max(3.0, 0.18 * len(rows) + 1.5), 60.0)
    fig, ax = plt.subplots(figsize=(6.5, height))
    ax.imshow(grid or [[0] * len(metrics)], cmap=ListedColormap(list(COLOURS.values())), vmin=0, vmax=2,
              aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(metrics)), [SHORT[m] for m in metrics])
    ax.set_yticks(range(len(rows)), [row["id"] for row in rows], fontsize=6 if len(rows) > 40 else 8)
    ax.xaxis.tick_top()
    ax.set_title(title, fontsize=9, pad=24)
    ax.legend(handles=[Patch(color=c, label=k.replace("_", " ")) for k, c in COLOURS.items()],
              loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
