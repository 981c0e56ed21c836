"""`judgelab compare RUN_DIR...`: figures side by side, flipped outcomes, train-versus-test gaps."""

from __future__ import annotations

import argparse

from judges.errors import ConfigError
from judges.runs.run_compare import comparison_markdown
from judges.runs.run_writer import FolderRecorder


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="two or more meta-eval run folders")


def run(args: argparse.Namespace) -> int:
    if len(args.runs) < 2:
        raise ConfigError("compare needs at least two run folders")
    print(comparison_markdown([FolderRecorder(path).load() for path in args.runs]), end="")
    return 0
