"""`judgelab validate`: run a judge on unit tests and exit non-zero when it misses a bar; writes JUnit XML."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judges.errors import ConfigError

JUDGE_KEYS = {"model": "judge", "prompts": "prompts", "api_base": "api_base", "temperature": "temperature",
              "max_tokens": "max_tokens", "seed": "seed", "json_schema": "json_schema", "cache": "cache",
              "cache_mode": "cache_mode", "concurrency": "concurrency"}
TEST_KEYS = {"source": "tests", "split": "split", "limit": "limit"}


def apply_config(args: argparse.Namespace, config: Any) -> None:
    """Settings from a config file fill in the command line (the file wins over defaults)."""
    for section, keys in ((config.judge, JUDGE_KEYS), (config.tests, TEST_KEYS)):
        for key, value in section.items():
            if key not in keys:
                raise ConfigError(f"unknown key {key!r} in the config; expected one of {', '.join(keys)}")
            setattr(args, keys[key], value)


def validate(args: argparse.Namespace) -> tuple[list[Any], Path]:
    """Run the meta-eval the gate asks for and check its bars; returns (bar results, run folder)."""
    from judges.runs.gate import Bar, GateConfig, check_bars
    from judges.paths import bundled_dir
    from judges.suite.loading import load_unit_tests
    from judges.cli.meta_eval_cmd import default_out, execute
    from judges.cli.options import judge_options

    bars = [Bar.parse(text, "min") for text in args.min or []] + [Bar.parse(text, "max") for text in args.max or []]
    if args.config:
        config = GateConfig.load(args.config)
        apply_config(args, config)
        bars = config.bars + bars
    if not bars:
        raise ConfigError("nothing to validate: give --min METRIC=RATE (e.g. --min total=0.8) or --config FILE")
    tests_source = args.tests or str(bundled_dir("unit_tests"))
    split = args.split or ("test" if args.tests is None else None)
    tests = load_unit_tests(tests_source, split)[:args.limit]
    out_dir = Path(args.out) if args.out else default_out(args, f"validate-{split or Path(tests_source).stem}")
    args.samples = 1
    execute(tests, judge_options(args), args, tests_source, split, out_dir)
    summary = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))["summary"]
    return check_bars(summary, bars), out_dir


def run(args: argparse.Namespace) -> int:
    from judges.runs.gate import junit_xml

    results, out_dir = validate(args)
    junit = Path(args.junit) if args.junit else out_dir / "junit.xml"
    junit_xml(results, f"judgelab.{args.judge}", junit)
    for result in results:
        print(result.describe())
    missed = [r for r in results if not r.passed]
    print(f"{'FAILED' if missed else 'PASSED'}: {len(results) - len(missed)}/{len(results)} bars met by {args.judge}; "
          f"JUnit report {junit}")
    return 1 if missed else 0
