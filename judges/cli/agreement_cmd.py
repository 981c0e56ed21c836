"""`judgelab agreement`: score external judge outputs against human labels; writes agreement.json and agreement.md."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.agreement.agreement_settings import (
    CUT,
    OPTIONS,
    OWN,
    AgreementSettings,
    LabelReading,
    checked_settings,
)
from judges.agreement.pairwise_formats import FORMATS, detect_spec
from judges.agreement.predictions import Predictions, read_predictions
from judges.cascade.calibration_schema import DEFAULT_CUT
from judges.cli.options import add_model_options, given_fields
from judges.errors import ConfigError, InputError
from judges.labels.schema import LabelledSet, LabelType
from judges.runs.folder import default_run_dir

if TYPE_CHECKING:
    from judges.agreement.result import MetricAgreement
    from judges.agreement.threshold import Calibration

READ_OWN = ("columns", "label_map", "label_type", "scale")  # the label options of a command with its own --split


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's options: its inputs and output, then one flag per field of `AgreementSettings`."""
    parser.add_argument(
        "--labels",
        required=True,
        metavar="SET_OR_FILE",
        help="a labelled set (begin, begin-wow, begin-cmu, begin-tc, topical-chat, ragchecker, alce, "
        "alce-asqa, alce-eli5, wikieval, ragtruth; begin-wow:test for another split; "
        "wikieval:DIR or ragtruth:DIR for a copy in the hub's format), a labelled-item JSONL, "
        "or your own CSV/TSV/JSONL/JSON/Parquet file or saved HF dataset folder with --columns",
    )
    parser.add_argument(
        "--predictions",
        required=True,
        action="append",
        metavar="FILE",
        help="judge outputs: JSONL, a JSON list, or a JSON object {id: score}; or a judgelab run folder (its "
        "verdicts: grades, nulls and failures). Given twice (A, then B), the two judges are also compared on the "
        "items both graded: paired differences A - B with paired-bootstrap intervals, Williams' test for correlations; "
        "on a judge benchmark (--format), any number of judges",
    )
    parser.add_argument("--out", metavar="DIR", help="output folder (default results/runs/<stamp>-agreement-<labels>)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="a judge benchmark's released files (labels and predictions alike; detected by shape when not given): "
        "the pairwise protocols (both orders, votes, ties, best of n) instead of the agreement statistics",
    )
    parser.add_argument(
        "--judge-system",
        metavar="NAME",
        help="on a judge benchmark whose pairs name their systems (MT-Bench): the system the judge is, for its "
        "self-preference (default: the judge's model name where it is one of them)",
    )
    sections = {OPTIONS: parser, CUT: parser.add_argument_group(CUT), OWN: parser.add_argument_group(OWN)}
    add_model_options(parser, AgreementSettings, groups=sections)


def add_label_options(parser: Any, only: Sequence[str] = READ_OWN, label_types: Sequence[str] | None = None) -> None:
    """The label options of a command that reads labels as `agreement` does, made from `LabelReading`'s fields:
    `only` those (by default `--columns`, `--label-map`, `--label-type`, `--scale`; a command that reads hub sets adds
    `split`), `label_types` narrowing the label types it takes. Read back with `label_reading`."""
    choices = {"label_type": label_types} if label_types else None
    add_model_options(parser, LabelReading, groups={OWN: parser, OPTIONS: parser}, only=only, choices=choices)


def label_reading(args: argparse.Namespace) -> LabelReading:
    """How the label options given (and `--metric`, `--split`, where the command has them) read labels."""
    return checked_settings(LabelReading, given_fields(args, LabelReading))


def check_options(args: argparse.Namespace, settings: AgreementSettings) -> None:
    """The measuring options, checked together before any file is read."""
    if settings.threshold is not None and (settings.calibration or settings.calibration_fraction is not None):
        raise ConfigError("--threshold gives the cut; --calibration and --calibration-fraction fit one: choose one")
    if settings.calibration and settings.calibration_fraction is not None:
        raise ConfigError("--calibration and --calibration-fraction: choose one")
    if len(args.predictions) > 2:
        raise ConfigError("--predictions: one judge, or two to compare (given A, then B)")


def run(args: argparse.Namespace) -> int:
    from judges.agreement.agreement_files import metric_table, write_report  # defers numpy
    from judges.agreement.report_figures import comparison_table, reading_line  # defers numpy
    from judges.agreement.threshold import Calibration  # defers numpy

    settings = checked_settings(AgreementSettings, given_fields(args, AgreementSettings))
    if getattr(args, "format", None) or detect_spec(args.labels):
        return run_pairwise(args, settings)  # any number of judges, each beside the references
    if args.judge_system:
        raise ConfigError("--judge-system is for a judge benchmark's pairs (--format mtbench)")
    check_options(args, settings)
    labels = settings.open(args.labels)
    calibration = Calibration(
        items=settings.open(settings.calibration) if settings.calibration else None,
        fraction=settings.calibration_fraction,
        folds=settings.folds,
        seed=settings.seed,
    )
    measure = measuring(settings, calibration)
    metrics = [settings.metric] if settings.metric else labels.metrics()
    results, second, comparison, confidence = [], [], {}, []
    for metric in metrics:
        subset = labels.for_metric(metric)
        judged = [
            read_predictions(
                path,
                id_field=settings.id_field,
                score_field=settings.score_field,
                metric=metric,
                scale=subset.items[0].scale,
            )
            for path in args.predictions
        ]
        results.append(measure(subset, judged[0]))
        if (stated := stated_calibration(subset, judged[0], metric, settings.threshold)) is not None:
            confidence.append(stated)
        if len(judged) == 2:
            second.append(measure(subset, judged[1]))
            measured = (results[-1], second[-1])
            comparison[metric] = compare_on_common_items(subset, judged, metric, measure, measured, settings)
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "agreement", labels.name)
    write_report(
        out_dir,
        results,
        second=(args.predictions[-1], second) if second else None,
        comparison=comparison,
        confidence=confidence,
        labels={
            "name": labels.name,
            "source": labels.source,
            "spec": args.labels,
            "columns": settings.columns,
            "label_map": getattr(args, "label_map", None),
            "calibration": settings.calibration,
        },
        predictions={
            "path": args.predictions[0],
            "id_field": settings.id_field,
            "score_field": settings.score_field,
            "direction": "higher is better" if settings.higher_is_better else "lower is better",
        },
    )
    for result in results:
        print("\n".join(metric_table(result)))
        print()
    line = reading_line(results)
    if line:
        print(line)
        print()
    for metric, differences in comparison.items():
        print("\n".join(comparison_table(metric, args.predictions, differences)))
        print()
    print(f"wrote {out_dir}/agreement.json, agreement.md")
    if line:  # the line to read the figures by, again after every table
        print(f"\n{line}")
    return 0


def run_pairwise(args: argparse.Namespace, settings: AgreementSettings) -> int:
    """A judge benchmark's labels and judges' verdicts in its released format: the pairwise block per judge."""
    from judges.agreement.pairwise_files import run_pairwise as measure_pairwise  # defers numpy

    stem = Path(args.labels.rstrip("/")).stem or "benchmark"
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "agreement", stem)
    boot = {"resamples": settings.resamples, "seed": settings.seed, "confidence": settings.confidence}
    lines = measure_pairwise(args.labels, args.predictions, args.format, out_dir, boot, args.judge_system)
    print("\n".join(lines))
    print(f"\nwrote {out_dir}/agreement.json, agreement.md")
    return 0


def measuring(
    settings: AgreementSettings, calibration: Calibration
) -> Callable[[LabelledSet, Predictions], MetricAgreement]:
    """One metric's labels and a judge's predictions -> their agreement, measured as the settings say."""
    from judges.agreement.measure import measure  # defers numpy

    def measured(labels: LabelledSet, predictions: Predictions) -> MetricAgreement:
        return measure(labels, predictions, settings, calibration=calibration)

    return measured


def stated_calibration(subset: LabelledSet, predictions: Any, metric: str, cut: float | None) -> Any:
    """The calibration of the confidences the judge states (a `confidence` column, a run record's) on the labelled
    items it graded: its call agrees with the label as the cascade counts it (binary: the score cut at `cut`, 0.5
    by default; ordinal: the grade; preference: the direction). None when it states none, or labels are continuous."""
    from judges.agreement.confidence_calibration import confidence_calibration  # defers numpy
    from judges.cascade.verdicts import VerdictRule, item_labels  # defers numpy

    label_type = subset.items[0].label_type
    if label_type is LabelType.CONTINUOUS or not predictions.may_state_confidence():
        return None
    rule = VerdictRule(label_type, DEFAULT_CUT if cut is None else cut)
    confidences, agreed = [], []
    for item_id, label in item_labels(subset).items():
        prediction = predictions.get(item_id, metric)
        if prediction is not None and prediction.score is not None and prediction.confidence is not None:
            confidences.append(prediction.confidence)
            agreed.append(rule.agrees(prediction.score, label))
    return confidence_calibration(metric, confidences, agreed)


def compare_on_common_items(
    subset: LabelledSet,
    judged: list[Predictions],
    metric: str,
    measure: Callable[[LabelledSet, Predictions], MetricAgreement],
    measured: tuple[MetricAgreement, MetricAgreement],
    settings: AgreementSettings,
) -> list[Any]:
    """The paired differences (A - B) on the items both graded: both judges measured again on those, unless they
    are every labelled item (then `measured`, the two judges' results on all of them, are those measures)."""
    from judges.agreement.paired import compare  # defers numpy

    def graded(predictions: Predictions) -> set[str]:
        return {i for i in predictions.ids(metric) if (p := predictions.get(i, metric)) and p.score is not None}

    both = graded(judged[0]) & graded(judged[1])
    common = LabelledSet(subset.name, tuple(i for i in subset.items if i.id in both), subset.source)
    if not common.items:
        raise InputError(f"the two judges graded no {metric} item in common", path=judged[1].source)
    if len(common.items) == len(subset.items):
        a, b = measured
    else:
        a, b = (measure(common, predictions) for predictions in judged)
    return compare(a, b, resamples=settings.resamples, seed=settings.seed)
