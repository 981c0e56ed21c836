"""`judgelab meta-eval`: score a judge against unit tests; writes results.jsonl, report.json, summary.md, plot."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from judges.errors import ConfigError
from judges.paths import bundled_dir
from judges.cli.options import judge_options


def run(args: argparse.Namespace) -> int:
    from judges.suite.loading import load_unit_tests

    tests_source = args.tests or str(bundled_dir("unit_tests"))
    split = args.split or ("train" if args.tests is None else None)
    if args.samples < 1:
        raise ConfigError("--samples must be at least 1")
    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    tests = load_unit_tests(tests_source, split)[:args.limit]
    options = judge_options(args)
    if args.dry_run:
        return dry_run(tests, options, args.samples)
    out_dir = Path(args.out) if args.out else default_out(args, split or Path(tests_source).stem)
    return execute(tests, options, args, tests_source, split, out_dir)


def default_out(args: argparse.Namespace, split: str) -> Path:
    from judges.judging.factory import default_run_dir

    return default_run_dir(Path("results/runs"), args.judge, Path(args.prompts).name, split)


def dry_run(tests: list, options, draws: int) -> int:  # type: ignore[type-arg]
    from judges.runs.cost_estimate import estimate_meta_eval
    from judges.judging.factory import planning_judge

    judge, cache = planning_judge(options)
    try:
        print(f"{len(tests)} unit tests x {draws} draw(s) with {options.judge}")
        print(estimate_meta_eval(tests, judge, draws, cache).describe())
    finally:
        if cache is not None:
            cache.close()
    return 0


def execute(tests: list, options, args: argparse.Namespace, tests_source: str, split: str | None,  # type: ignore[type-arg]
            out_dir: Path) -> int:
    from judges import __version__
    from judges.suite.scoring import run_meta_eval
    from judges.runs.plot import plot_result_matrix
    from judges.runs.summary import markdown_summary, read_rows, write_report
    from judges.judging.factory import open_judge

    started = time.perf_counter()  # the folder is made once the judge is up, so a bad option leaves nothing
    with open_judge(options) as session:
        from tqdm import tqdm

        with tqdm(total=len(tests) * args.samples, desc="unit tests", unit="test", file=sys.stderr,
                  disable=None) as bar:
            outcome = asyncio.run(run_meta_eval(tests, session.judge, out_dir / "results.jsonl",
                                                lambda _r: bar.update(), draws=args.samples))
        run_info = {
            "run_id": out_dir.name, "judgelab_version": __version__, "judge": session.model.name,
            "litellm_model": session.model.litellm_model, "prompts": session.prompts.name,
            "prompt_folder": str(session.prompts.folder), "prompt_sha256": session.prompts.hashes(),
            "params": options.public_params(), "json_schema": session.model.json_schema,
            "tests": tests_source, "split": split, "limit": args.limit, "n_tests": len(tests), "draws": args.samples,
            "cache": {"path": options.cache_path, "mode": options.cache_mode}, "runtime": vars(session.runtime.usage),
            "stopped": outcome.stopped,
            "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "duration_s": round(time.perf_counter() - started, 2),
        }
    rows = read_rows(out_dir / "results.jsonl")
    order = {test.id: index for index, test in enumerate(tests)}
    rows.sort(key=lambda row: (row.get("draw", 0), order[row["id"]]))
    report = write_report(out_dir, run_info, rows)
    plot_result_matrix([r for r in rows if r.get("draw", 0) == 0], out_dir / "result_matrix.png",
                       f"{run_info['judge']} / {run_info['prompts']}")
    print(markdown_summary(report))
    print(f"wrote {out_dir}/results.jsonl, report.json, summary.md, result_matrix.png")
    return 0
