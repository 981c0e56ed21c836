"""`judgelab cascade monitor`: a deployed cascade's decisions (and audit labels) against its calibration."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.cli.agreement_cmd import READ_OWN, add_label_options, label_reading
from judges.errors import ConfigError, InputError

if TYPE_CHECKING:
    from judges.cascade.calibration_schema import Calibration


def add_monitor(sub: Any) -> None:
    """The `monitor` subcommand and its options (imports nothing heavy)."""
    monitor = sub.add_parser(
        "monitor",
        help="watch a deployed cascade: windowed confidence sequences on the kept verdicts' agreement with audit "
        "labels, and on the share kept and the verdict rate; exit 1 on an alarm",
    )
    monitor.add_argument("calibration", metavar="CALIBRATION_JSON", help="calibration.json of `cascade calibrate`")
    monitor.add_argument(
        "--decisions", required=True, metavar="FILE", help="decisions.jsonl of `cascade apply` (several runs' lines "
        "concatenated), ordered by their timestamps (else by line)"
    )  # fmt: skip
    monitor.add_argument(
        "--labels", metavar="AUDIT", help="audit labels on a random sample of kept verdicts, read as `agreement` "
        "reads labels (the calibration's metric and label type unless given)"
    )  # fmt: skip
    monitor.add_argument("--window", type=int, default=200, metavar="W", help="audit labels per window (200)")
    monitor.add_argument("--windows", type=int, default=20, metavar="K", help="windows planned, each test (20)")
    monitor.add_argument(
        "--item-window", type=int, default=1000, metavar="N", help="decisions per window of the share kept and the "
        "verdict rate (1000); the verdict rate's reference is the first such window"
    )  # fmt: skip
    monitor.add_argument(
        "--alpha", type=float, default=0.05, metavar="A", help="false-alarm budget of the whole monitor (0.05)"
    )
    monitor.add_argument("--out", metavar="DIR", help="folder for monitor.json/.md/.png/.html (default: beside FILE)")
    add_label_options(monitor, READ_OWN, label_types=("binary", "ordinal", "preference"))


def check_plan(args: argparse.Namespace) -> None:
    for flag, value in (("--window", args.window), ("--windows", args.windows), ("--item-window", args.item_window)):
        if value < 1:
            raise ConfigError(f"{flag}: a positive whole number; got {value}")
    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha: a probability strictly between 0 and 1, e.g. 0.05; got {args.alpha:g}")


def audit_labels(args: argparse.Namespace, calibration: Calibration) -> dict[str, float]:
    """The audit labels, one per item, for the calibration's metric."""
    from judges.cascade.verdicts import item_labels  # defers numpy

    args.metric = calibration.metric
    if getattr(args, "label_type", None) is None:
        args.label_type = calibration.label_type
    subset = label_reading(args).open(args.labels).for_metric(args.metric)
    if not subset.items:
        raise InputError(f"no audit label for the calibration's metric {args.metric!r}", path=args.labels)
    if subset.items[0].label_type.value != calibration.label_type:
        raise InputError(
            f"the audit labels are {subset.items[0].label_type.value}; the calibration's are {calibration.label_type}",
            path=args.labels,
        )
    return item_labels(subset)


def monitor(args: argparse.Namespace, calibration: Calibration) -> int:
    """Read the decisions and labels, run every test, write the files; print the conclusion and each alarm's line.
    0 when nothing alarms, 1 on an alarm."""
    from judges.cascade.monitor_files import (  # defers numpy
        calibrated_of,
        judge_changes,
        monitor_record,
        read_decisions,
        with_audit,
        write_monitor,
    )
    from judges.cascade.monitor_plot import plot_monitor  # defers numpy
    from judges.cascade.monitor_stream import monitor as run_monitor  # defers numpy
    from judges.cascade.monitoring import Plan  # defers numpy

    check_plan(args)
    calibrated = calibrated_of(calibration)
    ids, stream, order = read_decisions(args.decisions, calibrated.judges)
    notes = [f"Decisions ordered {order}."]
    if args.labels:
        stream, unused = with_audit(ids, stream, audit_labels(args, calibration), args.labels)
        notes += unused
    if calibration.slices is not None and stream.slices is None:
        notes.append(f"Calibrated per {calibration.slices.field}, but no decision names its slice: monitored pooled.")
    result = run_monitor(stream, calibrated, Plan(args.window, args.windows, args.item_window, args.alpha))
    notes += [f"{s.judge}, {s.family}: {note}" for s in result.sequences for note in s.notes]
    out = Path(args.out) if args.out else Path(args.decisions).parent / "monitor"
    settings = {"calibration": args.calibration, "decisions_file": args.decisions, "labels_file": args.labels}
    changes, changed = judge_changes(stream, calibration)  # where a decision shows the judge's fingerprint changed
    record = monitor_record(result, settings, changed + notes) | {"judge_changes": changes}
    written = write_monitor(out, record, result, plot_monitor(result, out / "monitor.png"))
    print(result.conclusion())
    for alarm in result.alarms:
        print(alarm.line())
    print(f"wrote {', '.join(str(p) for p in written)}")
    return result.exit_code
