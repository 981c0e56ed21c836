"""`judgelab leaderboard CONFIG`: rank candidate judges per metric; writes leaderboard .md/.csv/.json/.html."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from judges.errors import DatasetMissing
from judges.suite.loading import load_unit_tests


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="TOML with [[candidates]], [[evaluations]], [selection]")
    parser.add_argument(
        "--out", default="results", metavar="DIR", help="where the leaderboard files go (default results/)"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print each candidate x evaluation the board would run and what it would ask a model; call nothing",
    )


def run(args: argparse.Namespace) -> int:
    from judges.leaderboard.build import run_leaderboard  # defers pydantic
    from judges.leaderboard.config import load_config  # defers pydantic

    config = load_config(args.config)
    if args.dry_run:
        return dry_run(config)
    out = Path(args.out)
    _, picks, _ = run_leaderboard(config, out)
    for pick in picks:
        best = pick.winner.candidate if pick.winner else "-"
        print(f"{pick.evaluation:32} {pick.metric:20} best: {best:24} ({pick.reason()})")
    print(f"wrote {out}/leaderboard.md, leaderboard.csv, leaderboard.json, leaderboard.html")
    return 0


def dry_run(config: Any) -> int:
    """Each candidate x evaluation the board would run, in its order: for an LLM on unit tests the same estimate as
    `meta-eval --dry-run`; on labels, one call per labelled item; baselines and embeddings call no judge."""
    from judges.cli.call_plan import dry_run as estimate  # defers pydantic
    from judges.leaderboard.build import applies, read_predictions  # defers pydantic
    from judges.leaderboard.label_entries import labelled_subset  # defers numpy

    labelled: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for evaluation in (e for e in config.evaluations if e.on_labels):
        try:
            labelled[evaluation.name] = labelled_subset(evaluation)
        except DatasetMissing as err:  # the evaluations that need no labelled set are still shown
            missing[evaluation.name] = str(err)
    read = read_predictions(config, labelled)
    evaluations = [e for e in config.evaluations if e.name not in missing]
    pairs = [(e, c) for e in evaluations for c in config.candidates if applies(c, e, labelled, read)]
    for done, (evaluation, candidate) in enumerate(pairs, 1):
        print(f"[{done}/{len(pairs)}] {candidate.name} ({candidate.kind}) on {evaluation.name}:")
        if candidate.kind in ("baseline", "embedding", "predictions"):
            says = {"embedding": " (an embedding per item)", "predictions": " (its outputs are read from its source)"}
            print("  no judge call" + says.get(candidate.kind, ""))
        elif evaluation.on_unit_tests:
            tests = load_unit_tests(evaluation.source, evaluation.split)[: evaluation.limit]
            estimate(tests, candidate.judge(config.cache), 1)
        else:
            labels = labelled[evaluation.name]
            items, metric = len({item.id for item in labels.items}), labels.metrics()[0]
            how = (
                "its prompt for" if candidate.kind == "llm" else f"the suite metric {candidate.metrics.get(metric)} for"
            )
            print(f"  {items} labelled items, {how} {metric}: a call or more per item")
    for name, why in missing.items():
        print(f"{name}: not shown, its labelled set is not here: {why}")
    print("Nothing was called.")
    return 0
