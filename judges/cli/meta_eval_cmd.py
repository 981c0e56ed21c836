"""`judgelab meta-eval`: score a judge against unit tests; writes the run folder (and, asked, the result-matrix plot)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.cli.options import judge_options
from judges.cli.render import finish_run


def run(args: argparse.Namespace) -> int:
    from judges.runs.api import load_tests

    split = args.split or ("train" if args.tests is None else None)
    tests = load_tests(args.tests, split, args.limit)
    options = judge_options(args)
    if args.samples < 1:
        from judges.errors import ConfigError

        raise ConfigError("--samples must be at least 1")
    if args.dry_run:
        return dry_run(tests, options, args.samples)
    return execute(args, tests, split, default_out(args, split or Path(args.tests).stem))


def default_out(args: argparse.Namespace, split: str) -> Path:
    from judges.runs.folder import default_run_dir

    prompts = Path(judge_options(args).prompts).name
    return Path(args.out) if args.out else default_run_dir(Path("results/runs"), args.judge, prompts, split)


def execute(args: argparse.Namespace, tests: list, split: str | None, out_dir: Path) -> int:  # type: ignore[type-arg]
    """Run the unit tests, print the summary (and draw the plot if asked); the exit code says how the run ended.

    The plot is opt-in: matplotlib alone takes longer to import than a fully cached re-run of the main job."""
    from judges.runs.api import run_unit_tests

    options = judge_options(args)
    run = run_unit_tests(
        tests,
        options,
        out=out_dir,
        draws=getattr(args, "samples", 1),
        progress=not args.quiet,
        data=args.tests or "unit_tests (shipped)",
        split=split,
    )
    written = ["results.jsonl", "run.json", "summary.md", "report.html"]
    if args.plot:
        from judges.render.plot import plot_result_matrix

        written.append(plot_result_matrix(run, out_dir / "result_matrix.png").name)
    return finish_run(run, written)


def dry_run(tests: list, options, draws: int) -> int:  # type: ignore[no-untyped-def, type-arg]
    from judges.judging.factory import planning_judge
    from judges.runs.cost_estimate import estimate_meta_eval

    judge, cache = planning_judge(options)
    try:
        print(f"{len(tests)} unit tests x {draws} draw(s) with {options.judge}")
        print(estimate_meta_eval(tests, judge, draws, cache).describe())
    finally:
        if cache is not None:
            cache.close()
    return 0
