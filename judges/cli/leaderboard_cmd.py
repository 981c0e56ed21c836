"""`judgelab leaderboard CONFIG`: rank candidate judges per metric; writes leaderboard .md/.csv/.json/.html."""

from __future__ import annotations

import argparse
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="TOML with [[candidates]], [[evaluations]], [selection]")
    parser.add_argument(
        "--out", default="results", metavar="DIR", help="where the leaderboard files go (default results/)"
    )


def run(args: argparse.Namespace) -> int:
    from judges.leaderboard.build import run_leaderboard  # defers pydantic
    from judges.leaderboard.config import load_config  # defers pydantic

    config = load_config(args.config)
    out = Path(args.out)
    _, picks, _ = run_leaderboard(config, out)
    for pick in picks:
        best = pick.winner.candidate if pick.winner else "-"
        print(f"{pick.evaluation:32} {pick.metric:20} best: {best:24} ({pick.reason()})")
    print(f"wrote {out}/leaderboard.md, leaderboard.csv, leaderboard.json, leaderboard.html")
    return 0
