"""`judgelab validate`: run a judge on unit tests and exit 1 when it misses a bar; writes JUnit XML."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judges.errors import ConfigError

TEST_ARGS = {"source": "tests", "split": "split", "limit": "limit"}
# JudgeOptions fields whose command-line option has another name
ARG_NAMES = {"cache_path": "cache", "timeout_s": "timeout", "requests_per_minute": "rpm"}


def apply_config(args: argparse.Namespace, config: Any) -> None:
    """Settings from a config file fill in the command line (the file wins over defaults)."""
    import json

    from judges.runs.gate import TEST_KEYS, judge_settings

    settings = judge_settings(config.judge)
    for key, value in settings.items():
        setattr(args, ARG_NAMES.get(key, key), json.dumps(value) if key == "extra" else value)
    for key, value in config.tests.items():
        if key not in TEST_KEYS:
            raise ConfigError(f"unknown key {key!r} in [tests]; expected one of {', '.join(TEST_KEYS)}")
        setattr(args, TEST_ARGS[key], value)


def run(args: argparse.Namespace) -> int:
    from judges.cli.meta_eval_cmd import default_out
    from judges.cli.options import judge_options
    from judges.cli.render import finish_run
    from judges.runs.api import load_tests, run_unit_tests
    from judges.runs.failures import listing
    from judges.runs.gate import Bar, GateConfig, check_bars
    from judges.runs.junit import junit_xml

    bars = [Bar.parse(text, "min") for text in args.min or []] + [Bar.parse(text, "max") for text in args.max or []]
    if args.config:
        config = GateConfig.load(args.config)
        apply_config(args, config)
        bars = config.bars + bars
    if not bars:
        raise ConfigError("nothing to validate: give --min METRIC=RATE (e.g. --min total=0.8) or --config FILE")
    split = args.split or ("test" if args.tests is None else None)
    tests = load_tests(args.tests, split, args.limit)
    out_dir = default_out(args, f"validate-{split or Path(args.tests).stem}")
    run = run_unit_tests(
        tests,
        judge_options(args),
        out=out_dir,
        progress=not args.quiet,
        data=args.tests or "unit_tests (shipped)",
        split=split,
    )
    finish_run(run, ["results.jsonl", "run.json", "summary.md"], quiet=True)
    if run.stop_reason and run.stop_reason != "degraded":
        return run.exit_code  # an endpoint or budget stop: no verdict on the bars
    results = check_bars(run.summary, bars)
    junit = Path(args.junit) if args.junit else out_dir / "junit.xml"
    junit_xml(results, run.records, f"judgelab.{args.judge}", junit)
    for result in results:
        print(result.describe())
        if not result.passed:
            for line in listing(run.records, result.bar.target):
                print(f"  {line}")
    missed = [r for r in results if not r.passed]
    print(
        f"{'FAILED' if missed else 'PASSED'}: {len(results) - len(missed)}/{len(results)} bars met by {args.judge}; "
        f"JUnit report {junit}"
    )
    return run.exit_code if run.stop_reason else (1 if missed else 0)  # degraded (5) before a missed bar
