"""`judgelab check-tests FILE|DIR`: validate unit-test files; exits 1 when any problem is found."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from judges.suite.checks import check_path

    failed = False
    for path in args.paths:
        count, problems = check_path(path)
        for problem in problems:
            print(problem)
        print(f"{path}: {count} unit tests, {len(problems)} problem(s)")
        failed = failed or bool(problems)
        if args.baselines:
            print_discrimination(path, args.split)
    return 1 if failed else 0


def print_discrimination(path: str, split: str) -> None:
    """Pass rates of the oracle and the constant / random baselines: a sound suite separates them."""
    from judges.suite.baselines import discrimination, discrimination_markdown
    from judges.judging.prompts import load_prompt_set
    from judges.suite.loading import load_unit_tests

    tests = load_unit_tests(path, split)
    print(f"\nDiscrimination on {path} ({len(tests)} tests, split {split}):\n")
    print(discrimination_markdown(discrimination(tests, load_prompt_set("default"))))
