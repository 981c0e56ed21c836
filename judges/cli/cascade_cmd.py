"""`judgelab cascade calibrate|apply`: judges that keep only the verdicts they can vouch for, and escalate the rest."""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from judges.agreement.agreement_settings import CUT, OPTIONS, AgreementSettings, LabelReading, checked_settings
from judges.cascade.calibration_schema import DEFAULT_CUT, calibration_text, read_calibration
from judges.cascade.decision_schema import id_problem
from judges.cli.agreement_cmd import READ_OWN, add_label_options, label_reading
from judges.cli.cascade_monitor_cmd import add_monitor, monitor
from judges.cli.options import add_model_options, given_fields
from judges.errors import ConfigError, InputError
from judges.labels.schema import LabelledSet, LabelType
from judges.labels.slices import check_slice_field, slice_name

JUDGES_HELP = (
    "a judge as NAME=SOURCE: a predictions file (JSONL or JSON of `id`, `score`, optional `confidence` in [0, 1]) "
    "or a judgelab run folder; give one per judge, cheapest first (a bare SOURCE is named after its file, or in "
    "`apply` after the calibration's judge at its place)"
)
ONE_METRIC = {"metric": "the metric (default: the labels' one metric)"}  # --metric as a command of one metric says it
PROBABILITY_CUT = {"threshold": f"cut of a probability score, binary labels ({DEFAULT_CUT})"}


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
    add_model_options(calibrate, LabelReading, groups={OPTIONS: calibrate}, only=("metric",), helps=ONE_METRIC)
    calibrate.add_argument(
        "--target", type=float, required=True, metavar="A", help="agreement the kept verdicts must reach, e.g. 0.85"
    )
    calibrate.add_argument(
        "--delta", type=float, default=0.1, metavar="D", help="the chance the guarantee may fail (default 0.1)"
    )
    add_model_options(calibrate, AgreementSettings, groups={CUT: calibrate}, only=("threshold",), helps=PROBABILITY_CUT)
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
    apply.add_argument(
        "--accept-changed-judge",
        action="store_true",
        help="go on when a run folder's judge differs from its calibration (model, fingerprint, prompt, decoding)",
    )
    add_monitor(sub)


def run(args: argparse.Namespace) -> int:
    if args.cascade_command == "calibrate":
        return calibrate(args)
    if args.cascade_command == "monitor":
        return monitor(args, read_calibration(args.calibration))
    return apply(args)


def labels_sha256(labels: LabelledSet) -> str:
    """The labels' fingerprint in calibration.json: SHA-256 of the labelled records' own SHA-256 digests, sorted (so
    the records' order does not count); 32 bytes held per record, never the records' text."""
    import numpy as np  # defers numpy

    digests = np.empty(len(labels.items), dtype="S32")
    for n, item in enumerate(labels.items):
        digests[n] = hashlib.sha256(json.dumps(item.to_record(), sort_keys=True).encode("utf-8")).digest()
    digests.sort()
    return hashlib.sha256(digests.tobytes()).hexdigest()


def check_settings(args: argparse.Namespace) -> None:
    if not 0 < args.target < 1:
        raise ConfigError(f"--target: an agreement strictly between 0 and 1, e.g. 0.85; got {args.target:g}")
    if not 0 < args.delta < 1:
        raise ConfigError(f"--delta: a probability strictly between 0 and 1, e.g. 0.1; got {args.delta:g}")
    if args.min_kept < 1:
        raise ConfigError("--min-kept must be at least 1")


def read_truth(args: argparse.Namespace) -> tuple[dict[str, float], Any, str, dict[str, Any], dict[str, str] | None]:
    """One label per item of the metric, the verdict rule, the metric, the labels described (name, spec,
    fingerprint, count), and with --slice each item's slice; the labelled set itself is not kept."""
    from judges.cascade.verdicts import VerdictRule, item_labels  # defers numpy

    field = getattr(args, "slice", None)
    reading = label_reading(args)
    labels = reading.open(args.labels, keep=() if field is None else (field,))
    metrics = labels.metrics()
    metric = reading.metric or (metrics[0] if len(metrics) == 1 else None)
    if metric is None:
        raise ConfigError(f"--metric: the labels have several metrics ({', '.join(metrics)}); choose one")
    subset = labels.for_metric(metric)
    cut = checked_settings(AgreementSettings, given_fields(args, AgreementSettings)).threshold
    rule = VerdictRule(subset.items[0].label_type, DEFAULT_CUT if cut is None else cut)
    truth = item_labels(subset)
    for item_id in truth:  # the ids go to decisions.jsonl and the queue: text UTF-8 can write, refused here at once
        if problem := id_problem(item_id):
            raise InputError(problem, path=args.labels, field="id")
    described = {"name": subset.name, "spec": args.labels, "sha256": labels_sha256(subset), "count": len(truth)}
    if field is not None:
        check_slice_field(subset, field)
    slice_of = None if field is None else {item.id: slice_name(item, field) for item in reversed(subset.items)}
    return truth, rule, metric, described, slice_of


def calibrate(args: argparse.Namespace) -> int:
    from judges.cascade.calibration_files import calibration_record, headline, write_calibration  # defers numpy
    from judges.cascade.cascade_plot import plot_calibration  # defers numpy
    from judges.cascade.chain import calibrate_cascade  # defers numpy
    from judges.cascade.sources import open_judges  # defers numpy

    check_settings(args)
    truth, rule, metric, described, slice_of = read_truth(args)
    judges = open_judges(args.predictions, metric)
    if slice_of is not None:  # a cascade per slice
        from judges.cli.cascade_slice_cmd import calibrate_sliced  # defers numpy

        return calibrate_sliced(args, judges, truth, slice_of, (rule, metric, described))
    steps = calibrate_cascade(judges, truth, rule, target=args.target, delta=args.delta, min_kept=args.min_kept)
    settings: dict[str, Any] = {
        "target": args.target,
        "delta": args.delta,
        "min_kept": args.min_kept,
        "cut": rule.cut,
        "label_type": rule.label_type.value,
        "metric": metric,
    }
    record = calibration_record(steps, settings=settings, labels=described)
    calibration_text(record)  # the record checked against the schema it is read back with, before any file
    out = Path(args.out)
    written = write_calibration(out, record, plot_calibration(steps, args.target, out / "calibration.png"))
    print(headline(record))
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


def apply(args: argparse.Namespace) -> int:
    from judges.cascade import decision_files as files  # defers numpy
    from judges.cascade.applying import Decision, decide  # defers numpy
    from judges.cascade.judge_check import check_sources  # defers numpy
    from judges.cascade.sources import open_judges, parse_judge_spec, unread_judge  # defers numpy
    from judges.cascade.streamed import streamed_decisions  # defers numpy
    from judges.cascade.verdicts import VerdictRule  # defers numpy

    calibration = read_calibration(args.calibration)
    calibrated = [j.name for j in calibration.judges]
    given = [parse_judge_spec(spec)[0] for spec in args.predictions]
    if len(given) != len(calibrated) or any(g not in (None, c) for g, c in zip(given, calibrated, strict=False)):
        shown = ", ".join(g or "(unnamed)" for g in given)
        raise ConfigError(
            f"--predictions: the calibration's judges are {', '.join(calibrated)} (in that order); got {shown}"
        )
    metric = calibration.metric
    rule = VerdictRule(LabelType(calibration.label_type), calibration.cut)
    thresholds = [j.threshold for j in calibration.judges]
    sources = [(name, parse_judge_spec(spec)[1]) for spec, name in zip(args.predictions, calibrated, strict=True)]
    if calibration.slices is not None:  # calibrated per slice
        from judges.cli.cascade_slice_cmd import apply_sliced  # defers numpy

        return apply_sliced(args, calibration, calibration.slices, sources, rule)
    decisions: Collection[Decision] | None = streamed_decisions(sources, thresholds, rule)  # files that line up
    if decisions is not None:
        judges = [unread_judge(name, source, metric) for name, source in sources]
        samples, notes = files.judge_samples([])  # predictions files carry no text
    else:
        judges = open_judges(args.predictions, metric, calibrated)
        changed = check_sources(calibration, args.calibration, judges, accept=args.accept_changed_judge)
        decisions = decide(judges, thresholds, rule)
        samples, notes = files.judge_samples(judges)
        notes += changed
    lines = files.summary_lines(decisions, judges, calibration) + notes
    queued = files.queue_of(metric, samples, args.calibration)
    written = files.write_decisions(Path(args.out), decisions, lines, queued, files.fingerprints(judges))
    print(lines[0].removeprefix("# "))
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
