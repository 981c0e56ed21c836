"""The monitor's picture: per judge and test, each window's confidence sequence over the stream, the reference
(the target, or the calibration's interval), and the alarm marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from judges.cascade.monitor_stream import MonitorResult
from judges.cascade.monitoring import AGREEMENT, Sequence, bounds_at, window_counts

POINTS = 300  # points drawn per window at most


def draw_sequence(ax: Any, sequence: Sequence) -> None:
    """One panel: each tested window's bounds (the upper one alone for agreement), the reference, the alarm."""
    successes, trials = window_counts(sequence.hits, sequence.window_of)
    low, high = sequence.reference
    tested = sorted(set(sequence.window_of[sequence.window_of >= 0].tolist()))
    if not tested:
        ax.text(0.5, 0.5, "no window tested yet", ha="center", transform=ax.transAxes, fontsize=8)
    for window in tested:
        rows = np.flatnonzero(sequence.window_of == window)
        rows = rows[:: max(1, len(rows) // POINTS)]
        lower, upper = bounds_at(successes[rows], trials[rows], sequence.alpha_window)
        x = sequence.positions[rows]
        ax.axvline(x[0], color="lightgrey", lw=0.6)
        ax.plot(x, upper, color="tab:blue", lw=1.2, label="upper bound" if window == 0 else None)
        if sequence.family != AGREEMENT:
            ax.plot(x, lower, color="tab:blue", lw=1.2, alpha=0.6, label="lower bound" if window == 0 else None)
        ax.plot(x, successes[rows] / trials[rows], color="tab:green", lw=0.6, alpha=0.7,
                label="window's rate" if window == 0 else None)  # fmt: skip
    if sequence.family == AGREEMENT:
        ax.axhline(low, linestyle="--", color="grey", label=f"target {low:g}")
    else:
        ax.axhspan(low, high, color="grey", alpha=0.2, label=f"reference [{low:.2f}, {high:.2f}]")
    alarm = sequence.alarm
    if alarm is not None:
        ax.plot([alarm.position], [alarm.bound], "X", color="tab:red", ms=10, label="alarm")
        ax.annotate(f"alarm: window {alarm.window}, bound {alarm.bound:.3f}", (alarm.position, alarm.bound),
                    textcoords="offset points", xytext=(6, -14), fontsize=8, color="tab:red")  # fmt: skip
    unit = "audit label" if sequence.family == AGREEMENT else "decision"
    ax.set_title(f"{sequence.judge}: {sequence.family}", fontsize=9)
    ax.set_xlabel(f"{unit} (in arrival order)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower left", fontsize=7)


def plot_monitor(result: MonitorResult, path: Path) -> Path:
    """monitor.png: a row per judge, a column per test; matplotlib with the Agg backend."""
    import matplotlib  # defers matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # defers matplotlib

    judges = list(dict.fromkeys(s.judge for s in result.sequences))
    families = list(dict.fromkeys(s.family for s in result.sequences))
    rows, cols = max(1, len(judges)), max(1, len(families))
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.6 * rows), squeeze=False)
    for sequence in result.sequences:
        draw_sequence(axes[judges.index(sequence.judge)][families.index(sequence.family)], sequence)
    if not result.sequences:
        axes[0][0].text(0.5, 0.5, "no judge keeps anything: nothing to monitor", ha="center")
    fig.suptitle(result.conclusion(), fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
