"""`judgelab tune`: search prompt variants on the train split (or on labelled items: `--labels`), write the tuned
folder, report once on the test split (or the held-out items)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, TooManyFailures
from judges.judging.replies import GRADE_SPECS
from judges.labels.label_log import is_label_log
from judges.stats.resampling import RESAMPLES


def configure(parser: argparse.ArgumentParser) -> None:
    from judges.cli.agreement_cmd import READ_OWN, add_label_options  # defers pydantic
    from judges.cli.options import add_judge_options  # defers pydantic

    add_judge_options(parser)
    parser.add_argument("--space", metavar="TOML", help="search space (default: the one judgelab ships)")
    parser.add_argument("--metrics", metavar="a,b", help="metrics to tune (default: every metric of the space)")
    parser.add_argument(
        "--tests", metavar="DIR", help="folder with train.jsonl and test.jsonl (default: the shipped unit_tests/)"
    )
    parser.add_argument(
        "--budget-calls", type=int, metavar="N", help="judge calls the search may need (default: the space's)"
    )
    parser.add_argument("--test-limit", type=int, metavar="N", help="report on the first N test-split tests only")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls to make (none when the cache answers the whole job) and their cost; call nothing",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="where the tuned prompts and the report go")
    labels = parser.add_argument_group("aligning to labels (instead of the unit tests)")
    labels.add_argument(
        "--labels",
        metavar="SET_OR_FILE_OR_RUN",
        help="tune to these labels: anything `agreement --labels` reads (a shared set, a labels file, your own file "
        "with --columns), or a judge's run folder (its verdicts are the labels: align to a stronger judge)",
    )
    add_label_options(labels, [*READ_OWN, "split"], label_types=("binary", "ordinal", "continuous"))
    labels.add_argument("--limit", type=int, metavar="N", help="N labelled items drawn with --split-seed (default all)")
    labels.add_argument(
        "--held-out", type=float, default=0.5, metavar="F", help="share of the items held out for the report (0.5)"
    )
    labels.add_argument(
        "--split-seed", type=int, default=0, metavar="N", help="seed of the item draw and the split (default 0)"
    )
    labels.add_argument(
        "--resamples",
        type=int,
        default=RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples of the held-out figures ({RESAMPLES})",
    )


def run(args: argparse.Namespace) -> int:
    from judges.cli.options import config_from_args  # defers pydantic
    from judges.tuning.pipeline import TuneJob  # defers pydantic

    config = config_from_args(args)
    if args.budget_calls is not None and config.max_cost is not None:
        raise ConfigError("give one budget: --budget-calls or --max-cost")
    if args.budget_calls is not None and args.budget_calls < 1:
        raise ConfigError("--budget-calls must be at least 1")
    if args.test_limit is not None and args.test_limit < 1:
        raise ConfigError("--test-limit must be at least 1")
    if args.labels:
        return _align(args, config)
    job = TuneJob(
        options=config.merged(max_cost=None),  # the tuner spends the cost limit across its runs
        out=Path(args.out),
        tests=Path(args.tests) if args.tests else None,
        space=Path(args.space) if args.space else None,
        metrics=[m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None,
        budget_calls=args.budget_calls,
        max_cost=config.max_cost,
        test_limit=args.test_limit,
        progress=lambda message: print(f"judgelab tune: {message}", file=sys.stderr),
    )
    if args.dry_run:
        from judges.tuning.tune_estimate import plan_tune  # defers pydantic
        from judges.tuning.tune_rehearsal import rehearse, replayed_line  # defers pydantic

        replayed = rehearse(job)  # the whole job from the cache; the plan at its first miss (its errors are the plan's)
        print(plan_tune(job).describe() if replayed is None else replayed_line(replayed))
        return 0
    from judges.tuning.pipeline import tune  # defers pydantic
    from judges.tuning.tuning_report import write_report  # defers pydantic

    outcome = tune(job)
    write_report(outcome, job.out)
    print((job.out / "report.md").read_text(encoding="utf-8"), end="")
    print(f"wrote {job.out}/report.md, report.json, prompts/, runs/")
    return _degraded(outcome.runs)


def _degraded(runs: dict[str, Any]) -> int:
    """Exit 5 with one line when a run the report rests on is over --fail-on-error, as for every degraded run."""
    from judges.tuning.runner import degraded_line  # defers pydantic

    line = degraded_line(runs)
    if line is None:
        return 0
    print(f"judgelab: degraded run: {line}", file=sys.stderr)
    return TooManyFailures.exit_code


def _align(args: argparse.Namespace, config: object) -> int:
    from judges.cli.agreement_cmd import label_reading  # defers pydantic
    from judges.config.judge import JudgeConfig  # defers pydantic
    from judges.tuning.align import AlignJob, align  # defers numpy
    from judges.tuning.align_report import write_align_report  # defers numpy

    assert isinstance(config, JudgeConfig)
    for flag, value in (("--tests", args.tests), ("--test-limit", args.test_limit), ("--dry-run", args.dry_run)):
        if value:
            raise ConfigError(f"{flag} applies to the unit-test search; with --labels the items are split instead")
    if not 0 < args.held_out < 1:
        raise ConfigError("--held-out: a share strictly between 0 and 1, e.g. 0.5")
    if args.resamples < 100:
        raise ConfigError("--resamples must be at least 100")
    if args.limit is not None and args.limit < 8:
        raise ConfigError("--limit must be at least 8 (4 items to search, 4 held out)")
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    given = label_reading(args)
    metric = metrics[0] if metrics and len(metrics) == 1 else None  # your own file's, when no column names it
    reading = {**given.model_dump(), "metric": metric, "label_map": given.label_map or {}}
    if given.label_type is None and metric and not given.columns:
        reading["label_type"], scale = metric_labels(metric, args.labels)
        reading["scale"] = given.scale or scale
    job = AlignJob(
        options=config.merged(max_cost=None),
        out=Path(args.out),
        labels=args.labels,
        reading=reading,
        metrics=metrics,
        space=Path(args.space) if args.space else None,
        budget_calls=args.budget_calls,
        max_cost=config.max_cost,
        limit=args.limit,
        held_out=args.held_out,
        seed=args.split_seed,
        resamples=args.resamples,
        progress=lambda message: print(f"judgelab tune: {message}", file=sys.stderr),
    )
    outcome = align(job)
    write_align_report(outcome, job.out)
    print((job.out / "report.md").read_text(encoding="utf-8"), end="")
    print(f"wrote {job.out}/report.md, report.json, prompts/ (with manifest.json), runs/, search/calls.jsonl")
    return _degraded(outcome.runs)


def metric_labels(metric: str, labels: str) -> tuple[str | None, tuple[float, float] | None]:
    """The label type (and scale) a plain file of one's own is read with when none is named: the tuned metric's own
    grades say it (binary for a pass/fail metric such as faithfulness, ordinal on its grades otherwise). None for a
    named set, a labels file written by judgelab, or a labelled-item file whose rows say their label type."""
    path = Path(labels)
    if metric not in GRADE_SPECS or not path.is_file():
        return None, None
    with path.open(encoding="utf-8", errors="replace") as lines:
        first = next((line for line in lines if line.strip()), "")
    try:
        row = json.loads(first)
    except ValueError:
        row = None  # not JSON Lines: a CSV or TSV of one's own
    if (isinstance(row, dict) and "label_type" in row) or is_label_log(labels):
        return None, None
    grades = GRADE_SPECS[metric][1]
    return ("binary", None) if tuple(grades) == (0, 1) else ("ordinal", (float(min(grades)), float(max(grades))))
