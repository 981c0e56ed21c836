"""`judgelab tune`: search prompt variants on the train split, write the tuned folder, report once on test."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judges.errors import ConfigError


def configure(parser: argparse.ArgumentParser) -> None:
    from judges.cli.options import add_judge_options  # defers pydantic

    add_judge_options(parser)
    parser.add_argument("--space", metavar="TOML", help="search space (default: the one judgelab ships)")
    parser.add_argument("--metrics", metavar="a,b", help="metrics to tune (default: every metric of the space)")
    parser.add_argument(
        "--tests", metavar="DIR", help="folder with train.jsonl and test.jsonl (default: the shipped unit_tests/)"
    )
    parser.add_argument(
        "--budget-calls", type=int, metavar="N", help="judge calls the search may need (default: the space's)"
    )
    parser.add_argument("--test-limit", type=int, metavar="N", help="report on the first N test-split tests only")
    parser.add_argument("--dry-run", action="store_true", help="print the search's calls and cost; call nothing")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the tuned prompts and the report go")


def run(args: argparse.Namespace) -> int:
    from judges.cli.options import config_from_args  # defers pydantic
    from judges.tuning.pipeline import TuneJob  # defers pydantic

    config = config_from_args(args)
    if args.budget_calls is not None and config.max_cost is not None:
        raise ConfigError("give one budget: --budget-calls or --max-cost")
    if args.budget_calls is not None and args.budget_calls < 1:
        raise ConfigError("--budget-calls must be at least 1")
    if args.test_limit is not None and args.test_limit < 1:
        raise ConfigError("--test-limit must be at least 1")
    job = TuneJob(
        options=config.merged(max_cost=None),  # the tuner spends the cost limit across its runs
        out=Path(args.out),
        tests=Path(args.tests) if args.tests else None,
        space=Path(args.space) if args.space else None,
        metrics=[m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None,
        budget_calls=args.budget_calls,
        max_cost=config.max_cost,
        test_limit=args.test_limit,
        progress=lambda message: print(f"judgelab tune: {message}", file=sys.stderr),
    )
    if args.dry_run:
        from judges.tuning.estimate import plan_tune  # defers pydantic

        print(plan_tune(job).describe())
        return 0
    from judges.tuning.pipeline import tune  # defers pydantic
    from judges.tuning.tuning_report import write_report  # defers pydantic

    outcome = tune(job)
    write_report(outcome, job.out)
    print((job.out / "report.md").read_text(encoding="utf-8"), end="")
    print(f"wrote {job.out}/report.md, report.json, prompts/, runs/")
    return 0
