"""`judgelab publish FOLDER --repo OWNER/NAME [--dry-run]`: push a leaderboard folder to a Hub dataset repo."""

from __future__ import annotations

import argparse

from judges.integrations.hub_publish import plan_publish, publish


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="FOLDER", help="a leaderboard folder (e.g. results/)")
    parser.add_argument("--repo", required=True, metavar="OWNER/NAME", help="Hub dataset repo")
    parser.add_argument("--message", help="commit message")
    parser.add_argument("--dry-run", action="store_true", help="list the files and the commit; push nothing")


def run(args: argparse.Namespace) -> int:
    plan = plan_publish(args.folder, args.repo, args.message)
    print(plan.describe())
    if args.dry_run:
        print("dry run: nothing was pushed")
        return 0
    print(f"pushed: {publish(plan)}")
    return 0
