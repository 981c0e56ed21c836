"""`judgelab plot RUN_DIR`: redraw a run's result-matrix plot (any run folder)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.render.plot import plot_result_matrix
from judges.runs.run_writer import FolderRecorder


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (it holds run.json and results.jsonl)")


def run(args: argparse.Namespace) -> int:
    run = FolderRecorder(args.run_dir).load()
    path = plot_result_matrix(run, Path(args.run_dir) / "result_matrix.png")
    print(f"wrote {path}")
    return 0
