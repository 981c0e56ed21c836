"""`judgelab evaluate FILE`: grade your own grounded-QA samples on the four metrics; writes the run folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.cli.options import add_judge_options, config_from_args
from judges.cli.render import finish_run


def configure(parser: argparse.ArgumentParser) -> None:
    add_judge_options(parser)
    parser.add_argument("file", metavar="FILE", help="JSONL of input, references, expected_output, actual_output")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N samples of FILE")
    parser.add_argument("--out", metavar="DIR", help="run folder (default results/runs/<run-id>)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the run would need, and call nothing",
    )


def run(args: argparse.Namespace) -> int:
    from judges.runs.api import grade_samples, load_samples
    from judges.runs.folder import default_run_dir

    config = config_from_args(args)
    samples = load_samples(args.file, args.limit)
    if args.dry_run:
        from judges.cli.meta_eval_cmd import dry_run

        return dry_run([sample for _, sample in samples], config, 1, unit="samples")
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "evaluate", config.model)
    run = grade_samples(samples, config, out=out_dir, progress=not args.quiet, data=args.file)
    return finish_run(run, ["results.jsonl", "run.json", "summary.md"])
