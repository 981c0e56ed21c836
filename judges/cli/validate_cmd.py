"""`judgelab validate`: the unit-test gate (exit 1 on a missed bar; JUnit XML), or certifying outputs on --labels."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judges.api import load_tests, run_unit_tests
from judges.cli import certificate_gate_cmd as certified_gate
from judges.cli.call_plan import dry_run
from judges.cli.certify_cmd import add_certify_options, certify, check_mode, statistic_bars
from judges.cli.finish import finish_run
from judges.cli.meta_eval_cmd import default_out
from judges.cli.options import add_judge_options, add_test_options, config_from_args
from judges.cli.sequential_cmd import add_sequential_options, check_flags, plan
from judges.cli.slice_certify_cmd import certify_slices
from judges.errors import ConfigError
from judges.integrations.gate import Bar, GateConfig, check_bars
from judges.integrations.junit import junit_xml
from judges.runs.run_writer import FolderRecorder
from judges.suite.drift import drift, drift_lines
from judges.suite.misses import listing

TEST_ARGS = {"source": "tests", "split": "split", "limit": "limit"}  # [tests] key -> option


def configure(parser: argparse.ArgumentParser) -> None:
    add_judge_options(parser)
    add_test_options(parser, "test")
    parser.add_argument(
        "--min",
        action="append",
        metavar="METRIC=RATE",
        help="lowest acceptable pass rate, e.g. --min faithfulness=0.9 --min total=0.8; with --labels, the lowest "
        "acceptable lower bound of an agreement statistic, e.g. --min cohen_kappa=0.6",
    )
    parser.add_argument(
        "--max",
        action="append",
        metavar="failure_rate=RATE",
        help="highest acceptable share of judged verdicts the run failed to get",
    )
    parser.add_argument(
        "--config",
        metavar="TOML",
        help="judge, tests and bars from a file ([judge], [tests], [min], [max]); judge flags given win over it",
    )
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML path (default <run folder>/junit.xml)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, tokens and cost the gate's run would need, and call nothing",
    )
    parser.add_argument(
        "--baseline",
        metavar="RUN_DIR",
        help="an earlier run of the same judge on the same tests: also fail (exit 1) when the pass rate fell "
        "significantly (McNemar's exact test)",
    )
    add_certify_options(parser)
    add_sequential_options(parser)
    certified_gate.add_certificate_options(parser)


def run(args: argparse.Namespace) -> int:
    if certified_gate.wanted(
        args
    ):  # a certified gate: the certificate's verdict and the judge now (certificate_gate_cmd.py)
        return certified_gate.gate(args)
    if args.plan:  # labels planned: no labels read, no judge called
        return plan(args, statistic_bars(args.min), statistic_bars(args.expect, "--expect"))
    check_flags(args, statistic_bars(args.min) if args.labels is not None else {})
    check_mode(args)
    if args.labels is not None:
        return certify_slices(args, args.min) if args.slice is not None else certify(args, args.min)
    bars = [Bar.parse(text, "min") for text in args.min or []] + [Bar.parse(text, "max") for text in args.max or []]
    from_file: dict[str, object] = {}
    if args.config:
        gate = GateConfig.load(args.config)
        from_file = gate.judge
        for key, value in gate.tests.items():  # the file's [tests] fill in the command line
            setattr(args, TEST_ARGS[key], value)
        bars = gate.bars + bars
    baseline = args.baseline or (gate.baseline if args.config else None)
    if not bars and not baseline:
        raise ConfigError(
            "nothing to validate: give --min METRIC=RATE (e.g. --min total=0.8), --baseline RUN_DIR or --config FILE"
        )
    before = FolderRecorder(baseline).load() if baseline else None  # a bad folder stops before any call
    config = config_from_args(args, from_file)
    split = args.split or ("test" if args.tests is None else None)
    tests = load_tests(args.tests, split, args.limit)
    if args.dry_run:
        return dry_run(tests, config, 1)
    out_dir = default_out(args, config, f"validate-{split or Path(args.tests).stem}")
    run = run_unit_tests(
        tests,
        config,
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
    junit_xml(results, run.records, f"judgelab.{config.model}", junit)
    for result in results:
        print(result.describe())
        if not result.passed:
            for line in listing(run.records, result.bar.target):
                print(f"  {line}")
    missed = [r for r in results if not r.passed]
    fell = check_drift(before, run) if before is not None else False
    print(
        f"{'FAILED' if missed or fell else 'PASSED'}: {len(results) - len(missed)}/{len(results)} bars met by "
        f"{config.model}"
        + ("; the pass rate fell significantly from the baseline" if fell else "")
        + f"; JUnit report {junit}"
    )
    return run.exit_code if run.stop_reason else (1 if missed or fell else 0)  # degraded (5) before a missed bar


def check_drift(before: Any, run: Any) -> bool:
    """Print the drift from the baseline run to this one; True when the pass rate fell significantly (the gate's
    failure, exit 1)."""

    result = drift(before, run)
    names = (before.folder.name if before.folder else "baseline", run.folder.name if run.folder else "this run")
    for line in drift_lines(result, *names):
        print(line)
    usage = run.summary.usage
    if usage.cached_calls:
        print(
            f"note: {usage.cached_calls} of {usage.replies} replies came from the cache, so the provider was not "
            "asked again for them; use --cache-mode off (or another --cache) to measure drift"
        )
    return result.fell
