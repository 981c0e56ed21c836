"""`judgelab check-tests FILE|DIR`: validate unit-test files; exits 1 when any problem is found."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from ..suite_check import check_path

    failed = False
    for path in args.paths:
        count, problems = check_path(path)
        for problem in problems:
            print(problem)
        print(f"{path}: {count} unit tests, {len(problems)} problem(s)")
        failed = failed or bool(problems)
    return 1 if failed else 0
