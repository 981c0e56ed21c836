"""`judgelab validate --labels ... --slice FIELD`: certified only when every slice's bounds reach their bars."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judges.agreement import certify as certifying
from judges.agreement import slice_certification as slices
from judges.agreement.predictions import read_predictions
from judges.cli import certify_cmd as fixed
from judges.cli import sequential_cmd as sequential
from judges.cli.agreement_cmd import label_reading
from judges.cli.cascade_cmd import labels_sha256
from judges.errors import ConfigError
from judges.labels.schema import LabelledSet, LabelType
from judges.labels.slices import check_slice_field, split_by
from judges.runs.folder import default_run_dir
from judges.runs.run_identity import source_identity


def one_slice(
    args: argparse.Namespace, name: str, subset: LabelledSet, predictions: Any, bars: dict[str, float]
) -> Any:
    """A slice's outcome: its labels per class, every bar checked on its labels alone (in order with --sequential)."""
    result = fixed.measured(args, subset, predictions)
    binary = subset.items[0].label_type is LabelType.BINARY
    counts = certifying.class_counts(result.errors, subset, binary)
    if args.sequential:
        checks: list[Any] = sequential.sequential_checks(args, result, bars).checks
        state, reason = slices.sequential_state(checks)
    else:
        checks = fixed.bound_checks(args, result, subset, bars)
        state, reason = slices.fixed_state(checks)
    return slices.SliceOutcome(
        name=name,
        counts=counts,
        state=state,
        reason=reason,
        checks=[check.to_dict() for check in checks],
        lines=[check.describe() for check in checks],
    )


def certify_slices(args: argparse.Namespace, texts: list[str] | None) -> int:
    """Certify every slice of the labels by `args.slice`; 0 when every slice is certified, 1 otherwise."""
    field = args.slice
    if field == "metric" and getattr(args, "metric", None) is None:
        return by_metric(args, texts)
    bars, subset, metric, _, predictions = fixed.opened(args, texts, keep=(field,))
    check_slice_field(subset, field)
    outcomes = [one_slice(args, name, part, predictions, bars) for name, part in split_by(subset, field).items()]
    pooled = one_slice(args, "(pooled)", subset, predictions, bars)
    return finish(args, field, outcomes, pooled, subset, metric)


def by_metric(args: argparse.Namespace, texts: list[str] | None) -> int:
    """--slice metric: each metric's labels against the judge's outputs for that metric (no pooled figure: a
    judge's scores mean another thing per metric)."""
    fixed.check_mode(args)
    bars = fixed.statistic_bars(texts)
    settings = fixed.certify_settings(args)
    labels = label_reading(args).open(args.labels)
    if args.min_recall is None and not bars:
        raise ConfigError("nothing to certify: give --min-recall R (binary labels) or --min STAT=VALUE")
    outcomes = []
    for metric in labels.metrics():
        subset = labels.for_metric(metric)
        if args.min_recall is not None and subset.items[0].label_type is not LabelType.BINARY:
            raise ConfigError(f"--min-recall is for binary labels; {metric}'s are not: bound it with --min STAT=VALUE")
        predictions = read_predictions(
            args.predictions,
            id_field=settings.id_field,
            score_field=settings.score_field,
            metric=metric,
            scale=subset.items[0].scale,
        )
        outcomes.append(one_slice(args, metric, subset, predictions, bars))
    return finish(args, "metric", outcomes, None, labels, None)


def finish(
    args: argparse.Namespace, field: str, outcomes: list[Any], pooled: Any, subset: LabelledSet, metric: str | None
) -> int:
    """Write certification.json with its `slices` block, print the slices that fail or are undecided first, the
    pooled figure, and the verdict naming them."""
    sha256 = labels_sha256(subset)
    record: dict[str, Any] = {
        "certified": slices.overall(outcomes) == slices.CERTIFIED,
        "verdict": slices.overall(outcomes),
        "mode": "sequential" if args.sequential else "fixed",
        "level": "one-sided 95% per slice, " + ("anytime-valid bounds" if args.sequential else "fixed-n bounds"),
        "slices": slices.slices_record(field, outcomes, None if pooled is None else pooled.to_dict()),
        "labels": {"name": subset.name, "spec": args.labels, "source": subset.source, "sha256": sha256},
        "predictions": {"source": args.predictions, "metric": metric},
        "judge_identity": source_identity(args.predictions).to_json(),  # who judged (a file: null fields)
        "reused": fixed.reuse_of(args, subset, sha256),
    }
    out = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "certify", subset.name)
    out.mkdir(parents=True, exist_ok=True)
    (out / "certification.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    for outcome in slices.failing_first(outcomes):
        print(outcome.headline())
        for line in outcome.lines if outcome.state != slices.CERTIFIED else []:
            print(f"  {line}")
    if pooled is not None:
        print(f"pooled over every slice (shown, not the certificate): {pooled.state.upper()} ({pooled.counts_text()})")
        for line in pooled.lines:
            print(f"  {line}")
    for entry in record["reused"]:
        if entry["reused"]:
            print(f"reused: {entry['kind']} {entry['path']} ({entry['note']})")
    print(slices.verdict_line(field, outcomes, f"{out}/certification.json"))
    return 0 if record["certified"] else 1
