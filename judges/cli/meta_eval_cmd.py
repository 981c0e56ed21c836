"""`judgelab meta-eval`: score a judge against unit tests; writes the run folder (and, asked, the result-matrix plot)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judges.api import load_tests, run_unit_tests
from judges.cli.call_plan import dry_run
from judges.cli.finish import finish_run
from judges.cli.options import DeprecatedAlias, add_judge_options, add_test_options, config_from_args
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.render.plot import plot_result_matrix
from judges.runs.folder import default_run_dir


def configure(parser: argparse.ArgumentParser) -> None:
    add_judge_options(parser)
    add_test_options(parser, "train")
    parser.add_argument(
        "--draws",
        type=int,
        default=1,
        metavar="K",
        help="judge each test K times and report grade variance and pass/fail flips",
    )
    parser.add_argument(
        "--samples", type=int, dest="draws", metavar="K", action=DeprecatedAlias, new="--draws", help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the run would need, and call nothing",
    )
    parser.add_argument(
        "--plot",
        action="store_true",
        help="also draw result_matrix.png (the report already shows the matrix; `judgelab plot` draws it later)",
    )


def run(args: argparse.Namespace) -> int:
    split = args.split or ("train" if args.tests is None else None)
    tests = load_tests(args.tests, split, args.limit)
    config = config_from_args(args)
    if args.draws < 1:
        raise ConfigError("--draws must be at least 1")
    if args.dry_run:
        return dry_run(tests, config, args.draws)
    return execute(args, config, tests, split, default_out(args, config, split or Path(args.tests).stem))


def default_out(args: argparse.Namespace, config: JudgeConfig, split: str) -> Path:
    prompts = Path(config.prompts).name
    return Path(args.out) if args.out else default_run_dir(Path("results/runs"), config.model, prompts, split)


def execute(args: argparse.Namespace, config: JudgeConfig, tests: list[Any], split: str | None, out_dir: Path) -> int:
    """Run the unit tests, print the summary (and draw the plot if asked); the exit code says how the run ended.

    The plot is opt-in: matplotlib alone takes longer to import than a fully cached re-run of the main job."""

    run = run_unit_tests(
        tests,
        config,
        out=out_dir,
        draws=args.draws,
        progress=not args.quiet,
        data=args.tests or "unit_tests (shipped)",
        split=split,
    )
    written = ["results.jsonl", "run.json", "summary.md", "report.html"]
    if args.plot:
        written.append(plot_result_matrix(run, out_dir / "result_matrix.png").name)
    return finish_run(run, written)
