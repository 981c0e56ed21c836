"""`judgelab show RUN_DIR`: a run folder's summary, from any command, with the items not passed or failed."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from judges.runs.markdown import summary_markdown
    from judges.runs.run import Run

    print(summary_markdown(Run.load(args.run_dir)), end="")
    return 0
