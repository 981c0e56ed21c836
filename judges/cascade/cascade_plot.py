"""The calibration's picture: per judge, the share of items kept against the agreement on them as the threshold
moves, with the chosen threshold and the target marked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judges.cascade.chain import Calibrated


def plot_calibration(steps: Sequence[Calibrated], target: float, path: Path) -> Path:
    """calibration.png: one panel per judge (on the items that reached it), matplotlib with the Agg backend."""
    import matplotlib  # defers matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # defers matplotlib

    fig, axes = plt.subplots(1, len(steps), figsize=(4.5 * len(steps), 4), squeeze=False)
    for ax, step in zip(axes[0], steps, strict=True):
        offered = step.choice.offered
        points = [(s.kept / offered, s.agreement) for s in step.choice.steps if s.kept]
        if points:
            ax.plot(
                [x for x, _ in points], [y for _, y in points], "-", color="tab:blue", label="as the threshold moves"
            )
        ax.axhline(target, linestyle="--", color="grey", label=f"target {target:g}")
        chosen = step.choice.chosen
        if chosen is not None:
            ax.plot([chosen.kept / offered], [chosen.agreement], "o", color="tab:red", ms=8)
            ax.annotate(
                f"threshold {chosen.threshold:.3g}: keeps {chosen.kept} of {offered}",
                (chosen.kept / offered, chosen.agreement),
                textcoords="offset points",
                xytext=(-10, -15),
                ha="right",
                fontsize=8,
            )
        else:
            ax.text(0.5, 0.1, "keeps nothing: even its most confident items miss the bound", ha="center", fontsize=8)
        ax.set_title(f"{step.judge.name} ({offered} items reach it)", fontsize=9)
        ax.set_xlabel("share of the items reaching it that it keeps")
        ax.set_ylabel("agreement with people on the kept items")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(min([0.5, target - 0.05] + [y for _, y in points]), 1.02)
        ax.legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
