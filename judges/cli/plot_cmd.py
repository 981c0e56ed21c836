"""`judgelab plot RUN_DIR`: redraw a run's result-matrix plot from its results.jsonl."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.errors import InputError


def run(args: argparse.Namespace) -> int:
    from judges.runs.plot import plot_result_matrix
    from judges.runs.summary import read_rows

    run_dir = Path(args.run_dir)
    if not (run_dir / "results.jsonl").is_file():
        raise InputError("not a run folder: results.jsonl is missing", path=str(run_dir))
    path = plot_result_matrix(read_rows(run_dir / "results.jsonl"), run_dir / "result_matrix.png", run_dir.name)
    print(f"wrote {path}")
    return 0
