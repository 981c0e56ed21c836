"""`judgelab cascade calibrate|apply`: judges that keep only the verdicts they can vouch for, and escalate the rest."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from judges.cli.agreement_cmd import READ_OWN, add_label_options, label_reading
from judges.cli.cascade_monitor_cmd import add_monitor, monitor
from judges.errors import ConfigError, InputError
from judges.files.checked import read_json_file
from judges.labels.schema import LabelledSet, LabelType

JUDGES_HELP = (
    "a judge as NAME=SOURCE: a predictions file (JSONL or JSON of `id`, `score`, optional `confidence` in [0, 1]) "
    "or a judgelab run folder; give one per judge, cheapest first (a bare SOURCE is named after its file, or in "
    "`apply` after the calibration's judge at its place)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """The subcommands and their options (imports nothing heavy)."""
    sub = parser.add_subparsers(dest="cascade_command", metavar="SUBCOMMAND", required=True)
    calibrate = sub.add_parser(
        "calibrate",
        help="choose each judge's confidence threshold on labelled items (fixed-sequence testing, exact binomial)",
    )
    calibrate.add_argument(
        "--labels", required=True, metavar="SET_OR_FILE", help="labelled items, as `agreement` reads them"
    )
    calibrate.add_argument("--predictions", required=True, action="append", metavar="NAME=SOURCE", help=JUDGES_HELP)
    calibrate.add_argument("--metric", metavar="M", help="the metric (default: the labels' one metric)")
    calibrate.add_argument(
        "--target", type=float, required=True, metavar="A", help="agreement the kept verdicts must reach, e.g. 0.85"
    )
    calibrate.add_argument(
        "--delta", type=float, default=0.1, metavar="D", help="the chance the guarantee may fail (default 0.1)"
    )
    calibrate.add_argument(
        "--threshold", type=float, default=0.5, metavar="T", help="cut of a probability score, binary labels (0.5)"
    )
    calibrate.add_argument(
        "--min-kept", type=int, default=30, metavar="N", help="items the first tested threshold keeps (default 30)"
    )
    calibrate.add_argument(
        "--slice",
        metavar="FIELD",
        help="a cascade per slice of the labels by FIELD (metric, system, domain: any label field or column), delta "
        "split over the slices (Bonferroni) so every slice keeps the target at once",
    )
    calibrate.add_argument("--out", required=True, metavar="DIR", help="folder for calibration.json/.md/.png/.html")
    add_label_options(calibrate, [*READ_OWN, "split"], label_types=("binary", "ordinal", "preference"))
    apply = sub.add_parser("apply", help="apply a calibration to judge outputs: decisions, summary, labelling queue")
    apply.add_argument("calibration", metavar="CALIBRATION_JSON", help="calibration.json of `cascade calibrate`")
    apply.add_argument("--predictions", required=True, action="append", metavar="NAME=SOURCE", help=JUDGES_HELP)
    apply.add_argument(
        "--out", required=True, metavar="DIR", help="folder for decisions.jsonl, summary.md, queue.jsonl"
    )
    apply.add_argument(
        "--slices",
        metavar="FILE",
        help="a calibration by slice: the items' slice field from this table (id and the field; default the first "
        "judge's predictions file); an item of a slice never calibrated is escalated",
    )
    add_monitor(sub)


def run(args: argparse.Namespace) -> int:
    if args.cascade_command == "calibrate":
        return calibrate(args)
    if args.cascade_command == "monitor":
        return monitor(args, read_calibration(args.calibration))
    return apply(args)


def labels_sha256(labels: LabelledSet) -> str:
    """SHA-256 of the labelled records (sorted), the labels' fingerprint in calibration.json."""
    rows = sorted(json.dumps(item.to_record(), sort_keys=True) for item in labels.items)
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()


def check_settings(args: argparse.Namespace) -> None:
    if not 0 < args.target < 1:
        raise ConfigError(f"--target: an agreement strictly between 0 and 1, e.g. 0.85; got {args.target:g}")
    if not 0 < args.delta < 1:
        raise ConfigError(f"--delta: a probability strictly between 0 and 1, e.g. 0.1; got {args.delta:g}")
    if args.min_kept < 1:
        raise ConfigError("--min-kept must be at least 1")


def calibrate(args: argparse.Namespace) -> int:
    from judges.cascade.calibration_files import calibration_record, headline, write_calibration  # defers numpy
    from judges.cascade.cascade_plot import plot_calibration  # defers numpy
    from judges.cascade.chain import calibrate_cascade  # defers numpy
    from judges.cascade.sources import open_judges  # defers numpy
    from judges.cascade.verdicts import VerdictRule, item_labels  # defers numpy

    check_settings(args)
    labels = label_reading(args).open(args.labels, keep=() if args.slice is None else (args.slice,))
    metrics = labels.metrics()
    metric = args.metric or (metrics[0] if len(metrics) == 1 else None)
    if metric is None:
        raise ConfigError(f"--metric: the labels have several metrics ({', '.join(metrics)}); choose one")
    subset = labels.for_metric(metric)
    rule = VerdictRule(subset.items[0].label_type, args.threshold)
    judges = open_judges(args.predictions, metric)
    truth = item_labels(subset)
    if args.slice is not None:  # a cascade per slice
        from judges.cli.cascade_slice_cmd import calibrate_sliced  # defers numpy

        return calibrate_sliced(args, judges, subset, rule, labels_sha256(subset))
    steps = calibrate_cascade(judges, truth, rule, target=args.target, delta=args.delta, min_kept=args.min_kept)
    settings: dict[str, Any] = {
        "target": args.target,
        "delta": args.delta,
        "min_kept": args.min_kept,
        "cut": args.threshold,
        "label_type": rule.label_type.value,
        "metric": metric,
    }
    described = {"name": subset.name, "spec": args.labels, "sha256": labels_sha256(subset), "count": len(truth)}
    record = calibration_record(steps, settings=settings, labels=described)
    out = Path(args.out)
    written = write_calibration(out, record, plot_calibration(steps, args.target, out / "calibration.png"))
    print(headline(record))
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def read_calibration(path: str) -> dict[str, Any]:
    """calibration.json as `cascade calibrate` wrote it (its judges' names and thresholds, the rule's settings)."""
    data = read_json_file(Path(path))
    if not isinstance(data, dict) or not isinstance(data.get("judges"), list):
        raise InputError("not a calibration.json of `judgelab cascade calibrate` (no judges list)", path=path)
    for key in ("target", "delta", "cut", "label_type", "metric", "labels"):
        if key not in data:
            raise InputError("missing field of a calibration.json", path=path, field=key)
    return data


def apply(args: argparse.Namespace) -> int:
    from judges.cascade.applying import decide  # defers numpy
    from judges.cascade.decision_files import judge_samples, queue_of, summary_lines, write_decisions  # defers numpy
    from judges.cascade.sources import open_judges, parse_judge_spec  # defers numpy
    from judges.cascade.verdicts import VerdictRule  # defers numpy

    calibration = read_calibration(args.calibration)
    calibrated = [str(j["name"]) for j in calibration["judges"]]
    given = [parse_judge_spec(spec)[0] for spec in args.predictions]
    if len(given) != len(calibrated) or any(g not in (None, c) for g, c in zip(given, calibrated, strict=False)):
        shown = ", ".join(g or "(unnamed)" for g in given)
        raise ConfigError(
            f"--predictions: the calibration's judges are {', '.join(calibrated)} (in that order); got {shown}"
        )
    metric = str(calibration["metric"])
    judges = open_judges(args.predictions, metric, calibrated)
    rule = VerdictRule(LabelType(calibration["label_type"]), float(calibration["cut"]))
    if "slices" in calibration:  # calibrated per slice
        from judges.cli.cascade_slice_cmd import apply_sliced  # defers numpy

        return apply_sliced(args, calibration, judges, rule)
    thresholds = [None if j["threshold"] is None else float(j["threshold"]) for j in calibration["judges"]]
    decisions = decide(judges, thresholds, rule)
    samples, notes = judge_samples(judges)
    lines = summary_lines(decisions, judges, calibration) + notes
    written = write_decisions(Path(args.out), decisions, lines, queue_of(decisions, metric, samples, args.calibration))
    print(lines[0].removeprefix("# "))
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
