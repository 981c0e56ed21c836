"""`judgelab agreement`: score external judge outputs against human labels; writes agreement.json and agreement.md."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.errors import ConfigError


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's options (called by main._configure; imports nothing heavy)."""
    parser.add_argument("--labels", required=True, metavar="SET_OR_FILE",
                        help="a labelled set (begin, begin-wow, begin-cmu, begin-tc, topical-chat, ragchecker, alce, "
                             "alce-asqa, alce-eli5, wikieval, ragtruth; wikieval:DIR or ragtruth:DIR for a copy in "
                             "the hub's format), a labelled-item JSONL, or your own CSV/JSONL/JSON/HF dataset with "
                             "--columns")
    parser.add_argument("--predictions", required=True, metavar="FILE",
                        help="judge outputs: JSONL, a JSON list, or a JSON object {id: score}")
    parser.add_argument("--metric", metavar="M", help="only this metric (default: every metric of the labels)")
    parser.add_argument("--policy", choices=["exclude", "wrong", "impute"], default="exclude",
                        help="null, failed and missing judge outcomes: drop the item, count it as wrong, or impute "
                             "the median (default exclude)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default results/runs/<stamp>-agreement-<labels>)")
    parser.add_argument("--id-field", default="id", metavar="FIELD",
                        help="prediction id field (dotted path; default id)")
    parser.add_argument("--score-field", default="score", metavar="FIELD[,FIELD_B]",
                        help="score field, or the two score fields of a pair (preference = b - a); dotted paths; "
                             "{metric} is replaced by the metric name (default score)")
    parser.add_argument("--threshold", type=float, metavar="T",
                        help="cut a continuous judge score at T for binary labels (default 0.5 for scores in [0, 1])")
    parser.add_argument("--resamples", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    own = parser.add_argument_group("your own labelled data")
    own.add_argument("--columns", metavar="MAP",
                     help="field=column pairs, e.g. input=question,actual_output=answer,label=score "
                          "(also id, references, expected_output, annotator, actual_output_b)")
    own.add_argument("--label-type", choices=["binary", "ordinal", "continuous", "preference"])
    own.add_argument("--scale", metavar="LOW,HIGH", help="label scale, e.g. 1,5 (required for ordinal and preference)")
    own.add_argument("--split", metavar="SPLIT", help="split of a hub set or HF dataset")


def _scale(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise ConfigError(f"--scale: expected LOW,HIGH, got {text!r}") from None
    if low >= high:
        raise ConfigError("--scale: LOW must be below HIGH")
    return low, high


def run(args: argparse.Namespace) -> int:
    from judges.agreement.measure import measure
    from judges.agreement.policy import Policy
    from judges.agreement.predictions import read_predictions
    from judges.agreement.report import metric_table, write_report
    from judges.labels.registry import open_labels
    from judges.runs.folder import default_run_dir

    if args.resamples < 100:
        raise ConfigError("--resamples must be at least 100")
    labels = open_labels(args.labels, columns=args.columns, metric=args.metric, label_type=args.label_type,
                         scale=_scale(args.scale), split=args.split)
    metrics = [args.metric] if args.metric else labels.metrics()
    results = []
    for metric in metrics:
        subset = labels.for_metric(metric)
        predictions = read_predictions(args.predictions, id_field=args.id_field, score_field=args.score_field,
                                       metric=metric)
        results.append(measure(subset, predictions, policy=Policy(args.policy), threshold=args.threshold,
                               resamples=args.resamples, seed=args.seed))
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "agreement", labels.name)
    write_report(out_dir, results, labels={"name": labels.name, "source": labels.source, "spec": args.labels},
                 predictions={"path": args.predictions, "id_field": args.id_field, "score_field": args.score_field})
    for result in results:
        print("\n".join(metric_table(result)))
        print()
    print(f"wrote {out_dir}/agreement.json, agreement.md")
    return 0
