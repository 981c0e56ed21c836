"""`judgelab check-tests FILE|DIR`: validate unit-test files; exit 1 on problems, 2 on a file that cannot be read."""

from __future__ import annotations

import argparse
import sys

from judges.errors import InputError
from judges.judging.prompts import load_prompt_set
from judges.suite.baselines import discrimination, discrimination_markdown
from judges.suite.loading import load_unit_tests
from judges.suite.test_file_checks import check_path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="FILE|DIR", help="unit-test files, or folders of them")
    parser.add_argument(
        "--baselines",
        action="store_true",
        help="also print the pass rates of the oracle and constant/random baseline judges",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="also apply the shipped suite's house rules (each type's conditions and shape, "
        "3-6 references, complete sets); always on for the shipped unit_tests/",
    )
    parser.add_argument(
        "--split",
        choices=["train", "test"],
        default="test",
        help="split used for --baselines when a folder is given (default test)",
    )


def run(args: argparse.Namespace) -> int:
    failed = unreadable = False
    for path in args.paths:
        try:
            count, problems = check_path(path, strict=True if args.strict else None)
        except InputError as err:  # every problem of the file, then the next file
            print(f"judgelab: error: {err}", file=sys.stderr)
            unreadable = True
            continue
        for problem in problems:
            print(problem)
        print(f"{path}: {count} unit tests, {len(problems)} problem(s)")
        failed = failed or bool(problems)
        if args.baselines:
            print_discrimination(path, args.split)
    return 2 if unreadable else 1 if failed else 0


def print_discrimination(path: str, split: str) -> None:
    """Pass rates of the oracle and the constant / random baselines: a sound suite separates them."""

    tests = load_unit_tests(path, split)
    print(f"\nDiscrimination on {path} ({len(tests)} tests, split {split}):\n")
    print(discrimination_markdown(discrimination(tests, load_prompt_set("default"))))
