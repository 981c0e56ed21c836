"""`judgelab agreement`: score external judge outputs against human labels; writes agreement.json and agreement.md."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from judges.agreement.policy import Policy
from judges.agreement.predictions import read_predictions
from judges.errors import ConfigError, InputError
from judges.labels.label_sets import open_labels
from judges.labels.mapping import parse_label_map
from judges.labels.schema import LabelledSet, LabelType
from judges.runs.folder import default_run_dir


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's options (imports nothing heavy)."""
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
        "items both graded: paired differences A - B with paired-bootstrap intervals, Williams' test for correlations",
    )
    parser.add_argument("--metric", metavar="M", help="only this metric (default: every metric of the labels)")
    parser.add_argument(
        "--policy",
        choices=["exclude", "wrong", "impute"],
        default="exclude",
        help="null, failed and missing judge outcomes: drop the item, count it as wrong, or impute "
        "the median (default exclude)",
    )
    parser.add_argument("--out", metavar="DIR", help="output folder (default results/runs/<stamp>-agreement-<labels>)")
    parser.add_argument(
        "--id-field", default="id", metavar="FIELD", help="prediction id field (dotted path; default id)"
    )
    parser.add_argument(
        "--score-field",
        default="score",
        metavar="FIELD[,FIELD_B]",
        help="score field, or the two score fields of a pair (preference = b - a); dotted paths; "
        "{metric} is replaced by the metric name (default score)",
    )
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument(
        "--higher-is-better",
        dest="higher_is_better",
        action="store_true",
        default=True,
        help="a higher judge score means a better answer (the default)",
    )
    direction.add_argument(
        "--lower-is-better",
        dest="higher_is_better",
        action="store_false",
        help="a lower judge score means a better answer (e.g. a hallucination probability)",
    )
    add_cut_options(parser)
    parser.add_argument("--resamples", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    own = parser.add_argument_group("your own labelled data")
    add_own_label_options(own)
    own.add_argument("--split", metavar="SPLIT", help="split of a hub set or HF dataset")


def add_cut_options(parser: argparse.ArgumentParser) -> None:
    """How a continuous judge score is cut for binary labels: given, fitted on calibration items, or cross-fitted."""
    cut = parser.add_argument_group(
        "the cut of a continuous judge score for binary labels (AUROC needs none; 0/1 grades are used as given)"
    )
    cut.add_argument("--threshold", type=float, metavar="T", help="cut at T (given, not fitted)")
    cut.add_argument(
        "--calibration",
        metavar="SET_OR_FILE",
        help="fit the threshold on these labelled items (read like --labels, with the same --columns); "
        "the figures rest on the items of --labels",
    )
    cut.add_argument(
        "--calibration-fraction",
        type=float,
        metavar="F",
        help="fit the threshold on a seeded fraction F of the items and report on the rest "
        "(cross-fitted instead when that is under 50 items)",
    )
    cut.add_argument(
        "--folds",
        type=int,
        default=5,
        metavar="K",
        help="folds of the cross-fitting used when no calibration is given (default 5)",
    )


def add_own_label_options(own: Any) -> None:
    """How your own labelled file is read (`--columns`, `--label-map`, `--label-type`, `--scale`): the options of
    every command that reads labels as `agreement` does."""
    own.add_argument(
        "--columns",
        metavar="MAP",
        help="field=path pairs, e.g. input=question,actual_output=answer,label=score (also id, "
        "references, expected_output, annotator, actual_output_b, metric, system: the system that wrote the answer, "
        "for the partial and system-level figures). Paths may be nested "
        "(doc.sentences[0]), fan out over annotators (label=annotations.*.label) or be constants "
        "(metric=const:faithfulness); a field not named keeps its own column name (label, id, input, ...), so a "
        "plain file needs none: no text when the predictions share the ids",
    )
    own.add_argument(
        "--label-map",
        metavar="TEXT=N,...",
        help='text labels to numbers, e.g. "Fully attributable=1,Generic=0,yes=1,no=0"',
    )
    own.add_argument(
        "--label-type",
        choices=["binary", "ordinal", "continuous", "preference"],
        help="what your own file's labels are (read through the columns' default names, renamed with --columns): "
        "yes/no, grades on a scale, scores, or A-vs-B preferences",
    )
    own.add_argument("--scale", metavar="LOW,HIGH", help="label scale, e.g. 1,5 (required for ordinal and preference)")


def parse_scale(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise ConfigError(f"--scale: expected LOW,HIGH, got {text!r}") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ConfigError(f"--scale: expected two finite numbers, got {text!r}")
    if low >= high:
        raise ConfigError("--scale: LOW must be below HIGH")
    return low, high


def label_reading(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `open_labels` from the label options (`--columns`, `--metric`, and so on)."""
    return dict(
        columns=args.columns,
        metric=args.metric,
        label_type=args.label_type,
        scale=parse_scale(args.scale),
        split=args.split,
        label_map=parse_label_map(args.label_map),
    )


def check_options(args: argparse.Namespace) -> None:
    """The measuring options, checked together before any file is read."""
    if args.resamples < 100:
        raise ConfigError("--resamples must be at least 100")
    if args.calibration_fraction is not None and not 0 < args.calibration_fraction < 1:
        raise ConfigError("--calibration-fraction: a fraction strictly between 0 and 1, e.g. 0.3")
    if args.folds < 2:
        raise ConfigError("--folds must be at least 2")
    if args.threshold is not None and (args.calibration or args.calibration_fraction is not None):
        raise ConfigError("--threshold gives the cut; --calibration and --calibration-fraction fit one: choose one")
    if args.calibration and args.calibration_fraction is not None:
        raise ConfigError("--calibration and --calibration-fraction: choose one")
    if len(args.predictions) > 2:
        raise ConfigError("--predictions: one judge, or two to compare (given A, then B)")


def run(args: argparse.Namespace) -> int:
    from judges.agreement.agreement_files import metric_table, write_report  # defers numpy
    from judges.agreement.measure import measure  # defers numpy
    from judges.agreement.report_figures import comparison_table, reading_line  # defers numpy
    from judges.agreement.threshold import Calibration  # defers numpy

    check_options(args)
    reading = label_reading(args)
    labels = open_labels(args.labels, **reading)  # type: ignore[arg-type]
    calibration = Calibration(
        items=open_labels(args.calibration, **reading) if args.calibration else None,  # type: ignore[arg-type]
        fraction=args.calibration_fraction,
        folds=args.folds,
        seed=args.seed,
    )
    metrics = [args.metric] if args.metric else labels.metrics()
    settings = dict(
        policy=Policy(args.policy),
        threshold=args.threshold,
        calibration=calibration,
        higher_is_better=args.higher_is_better,
        resamples=args.resamples,
        seed=args.seed,
    )
    results, second, comparison, confidence = [], [], {}, []
    for metric in metrics:
        subset = labels.for_metric(metric)
        judged = [
            read_predictions(
                path,
                id_field=args.id_field,
                score_field=args.score_field,
                metric=metric,
                scale=subset.items[0].scale,
            )
            for path in args.predictions
        ]
        results.append(measure(subset, judged[0], **settings))  # type: ignore[arg-type]
        if (stated := stated_calibration(subset, judged[0], metric, args.threshold)) is not None:
            confidence.append(stated)
        if len(judged) == 2:
            second.append(measure(subset, judged[1], **settings))  # type: ignore[arg-type]
            measured = (results[-1], second[-1])
            comparison[metric] = compare_on_common_items(subset, judged, metric, settings, measured)
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
            "columns": args.columns,
            "label_map": args.label_map,
            "calibration": args.calibration,
        },
        predictions={
            "path": args.predictions[0],
            "id_field": args.id_field,
            "score_field": args.score_field,
            "direction": "higher is better" if args.higher_is_better else "lower is better",
        },
    )
    for result in results:
        print("\n".join(metric_table(result)))
        print()
    if line := reading_line(results):
        print(line)
        print()
    for metric, differences in comparison.items():
        print("\n".join(comparison_table(metric, args.predictions, differences)))
        print()
    print(f"wrote {out_dir}/agreement.json, agreement.md")
    return 0


def stated_calibration(subset: LabelledSet, predictions: Any, metric: str, cut: float | None) -> Any:
    """The calibration of the confidences the judge states (a `confidence` column, a run record's) on the labelled
    items it graded: its call agrees with the label as the cascade counts it (binary: the score cut at `cut`, 0.5
    by default; ordinal: the grade; preference: the direction). None when it states none, or labels are continuous."""
    from judges.agreement.confidence_calibration import confidence_calibration  # defers sklearn
    from judges.cascade.verdicts import VerdictRule, item_labels  # defers numpy

    label_type = subset.items[0].label_type
    if label_type is LabelType.CONTINUOUS:
        return None
    rule = VerdictRule(label_type, 0.5 if cut is None else cut)
    confidences, agreed = [], []
    for item_id, label in item_labels(subset).items():
        prediction = predictions.get(item_id, metric)
        if prediction is not None and prediction.score is not None and prediction.confidence is not None:
            confidences.append(prediction.confidence)
            agreed.append(rule.agrees(prediction.score, label))
    return confidence_calibration(metric, confidences, agreed)


def compare_on_common_items(
    subset: Any, judged: list[Any], metric: str, settings: dict[str, Any], measured: tuple[Any, Any]
) -> list[Any]:
    """The paired differences (A - B) on the items both graded: both judges measured again on those, unless they
    are every labelled item (then `measured`, the two judges' results on all of them, are those measures)."""
    from judges.agreement.measure import measure  # defers numpy
    from judges.agreement.paired import compare  # defers numpy

    def graded(predictions: Any) -> set[str]:
        return {i for i in predictions.ids(metric) if (p := predictions.get(i, metric)) and p.score is not None}

    both = graded(judged[0]) & graded(judged[1])
    common = LabelledSet(subset.name, tuple(i for i in subset.items if i.id in both), subset.source)
    if not common.items:
        raise InputError(f"the two judges graded no {metric} item in common", path=judged[1].source)
    if len(common.items) == len(subset.items):
        a, b = measured
    else:
        a, b = (measure(common, predictions, **settings) for predictions in judged)
    return compare(a, b, resamples=settings["resamples"], seed=settings["seed"])
