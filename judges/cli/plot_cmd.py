"""`judgelab plot RUN_DIR`: redraw a run's result-matrix plot (any run folder)."""

from __future__ import annotations

import argparse
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (it holds run.json and results.jsonl)")


def run(args: argparse.Namespace) -> int:
    from judges.render.plot import plot_result_matrix
    from judges.runs.run import Run

    run = Run.load(args.run_dir)
    path = plot_result_matrix(run, Path(args.run_dir) / "result_matrix.png")
    print(f"wrote {path}")
    return 0
