"""The result-matrix plot of a run: items x metrics, coloured by outcome (unit tests) or by verdict state."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judges.runs.summarizer import SHORT, metric_names

if TYPE_CHECKING:
    from judges.records import MetricRecord
    from judges.runs.run import Run

OUTCOME_COLOURS = {"pass": "#2e7d32", "wrong_grade": "#c62828", "failure": "#9e9e9e"}
STATE_COLOURS = {"grade": "#1565c0", "null": "#ffb300", "failure": "#9e9e9e"}


def plot_result_matrix(run: Run, path: Path) -> Path:
    """Draw draw-0 items x metrics; records with outcomes (unit tests) show pass / wrong grade / failure, others the
    verdict state."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    records = [r for r in run.records if r.draw == 0]
    metrics = metric_names(records)
    by_outcome = any(r.is_unit_test for r in records)  # records that carry outcomes: coloured by them
    colours = OUTCOME_COLOURS if by_outcome else STATE_COLOURS
    order = list(colours)
    grid = [[order.index(_shade(r.metrics[m], by_outcome)) if m in r.metrics else 2 for m in metrics] for r in records]
    height = min(max(3.0, 0.18 * len(records) + 1.5), 60.0)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.5 * len(metrics) + 3), height))
    ax.imshow(
        grid or [[0] * max(1, len(metrics))],
        cmap=ListedColormap(list(colours.values())),
        vmin=0,
        vmax=2,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xticks(range(len(metrics)), [SHORT.get(m, m) for m in metrics], rotation=0 if by_outcome else 60, fontsize=8)
    ax.set_yticks(range(len(records)), [r.id for r in records], fontsize=6 if len(records) > 40 else 8)
    ax.xaxis.tick_top()
    ax.set_title(run.title, fontsize=9, pad=24)
    ax.legend(
        handles=[Patch(color=c, label=k.replace("_", " ")) for k, c in colours.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.01),
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _shade(entry: MetricRecord, by_outcome: bool) -> str:
    """The colour key of one cell: the outcome of a unit test, else the verdict's state."""
    if by_outcome:
        return entry.outcome.value if entry.outcome is not None else "failure"
    return entry.verdict.state.value
