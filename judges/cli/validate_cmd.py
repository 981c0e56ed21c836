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
    from judges.runs.run import Run

    config = None
    bars = [Bar.parse(text, "min") for text in args.min or []] + [Bar.parse(text, "max") for text in args.max or []]
    if args.config:
        config = GateConfig.load(args.config)
        apply_config(args, config)
        bars = config.bars + bars
    baseline = args.baseline or (config.baseline if config is not None else None)
    if not bars and not baseline:
        raise ConfigError(
            "nothing to validate: give --min METRIC=RATE (e.g. --min total=0.8), --baseline RUN_DIR or --config FILE"
        )
    before = Run.load(baseline) if baseline else None  # a bad folder stops before any call
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
    if run.stop_reason:
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
    fell = check_drift(before, run) if before is not None else False
    print(
        f"{'FAILED' if missed or fell else 'PASSED'}: {len(results) - len(missed)}/{len(results)} bars met by "
        f"{args.judge}"
        + ("; the pass rate fell significantly from the baseline" if fell else "")
        + f"; JUnit report {junit}"
    )
    return 1 if missed or fell else 0


def check_drift(before: Any, run: Any) -> bool:
    """Print the drift from the baseline run to this one; True when the pass rate fell significantly (the gate's
    failure, exit 1)."""
    from judges.runs.drift import drift, drift_lines

    result = drift(before, run)
    names = (before.folder.name if before.folder else "baseline", run.folder.name if run.folder else "this run")
    for line in drift_lines(result, *names):
        print(line)
    usage = run.summary.get("usage", {})
    if usage.get("cached_calls"):
        print(
            f"note: {usage['cached_calls']} of {usage['calls']} replies came from the cache, so the provider was not "
            "asked again for them; use --cache-mode off (or another --cache) to measure drift"
        )
    return result.fell
