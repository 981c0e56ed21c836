"""`judgelab evaluate FILE`: grade your own grounded-QA samples on the four metrics; writes the run folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.cli.options import judge_options
from judges.cli.render import finish_run


def run(args: argparse.Namespace) -> int:
    from judges.runs.api import grade_samples, load_samples
    from judges.runs.folder import default_run_dir

    samples = load_samples(args.file, args.limit)
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "evaluate", args.judge)
    run = grade_samples(samples, judge_options(args), out=out_dir, progress=not args.quiet, data=args.file)
    return finish_run(run, ["results.jsonl", "run.json", "summary.md"])
