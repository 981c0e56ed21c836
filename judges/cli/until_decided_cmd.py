"""`judgelab label serve --until-decided`: after each label, the certificate `validate --sequential` gives on the
labels file written so far, by the same code, and the asking stopped once it is decided."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judges.agreement.measure import measure
from judges.agreement.predictions import Predictions, read_predictions
from judges.agreement.result import MetricAgreement
from judges.agreement.sequential_certification import CERTIFIED, SequentialResult, proportion_bars
from judges.cli import validate_cmd
from judges.cli.certify_cmd import certify_settings, opened, statistic_bars
from judges.cli.sequential_cmd import sequential_checks
from judges.errors import ConfigError
from judges.labelling.certificate_watch import CertificateWatch
from judges.labelling.scales import LabelScale
from judges.labels.label_log import latest, read_events
from judges.labels.schema import LabelledSet, LabelType

ONLY_WITH = {"predictions": "--predictions", "min_recall": "--min-recall", "min": "--min", "threshold": "--threshold"}
RESAMPLES = (
    "100"  # the fewest validate takes; the counts-only measure draws none (the sequence reads the rows in order)
)


def check_until_decided(args: argparse.Namespace, scale: LabelScale | None) -> None:
    """One line for a flag out of place, before the page is served (`scale` None: an audit's pairs)."""
    if not args.until_decided:
        given = [flag for name, flag in ONLY_WITH.items() if getattr(args, name) is not None]
        if given:
            raise ConfigError(f"{', '.join(given)}: only with --until-decided")
        return
    if scale is None:
        raise ConfigError("--until-decided certifies a judge on a queue's labels, not an audit's pairs")
    if scale.label_type is not LabelType.BINARY:
        raise ConfigError("--until-decided bounds proportions of binary labels: label on a binary --scale")
    if args.predictions is None:
        raise ConfigError("--until-decided needs --predictions SOURCE (the judge's outputs the labels certify)")
    if not proportion_bars(args.min_recall, statistic_bars(args.min)):
        raise ConfigError("--until-decided: give the bars, --min-recall R or --min STAT=VALUE (e.g. accuracy=0.8)")


def validate_args(args: argparse.Namespace, metric: str) -> argparse.Namespace:
    """The options of `validate --labels OUT --predictions SOURCE --sequential` with these bars, read by validate's
    own parser (its defaults too)."""
    argv = ["--labels", str(args.out), "--predictions", str(args.predictions), "--metric", metric, "--sequential"]
    argv += ["--resamples", RESAMPLES]
    if args.min_recall is not None:
        argv += ["--min-recall", repr(args.min_recall)]
    if args.threshold is not None:
        argv += ["--threshold", repr(args.threshold)]
    for text in args.min or []:
        argv += ["--min", text]
    parser = argparse.ArgumentParser(prog="judgelab validate", add_help=False)
    validate_cmd.configure(parser)
    return parser.parse_args(argv)


def certificate_now(options: argparse.Namespace) -> SequentialResult | None:
    """The certificate on the labels written so far, as `validate --sequential` computes it; None before any label."""
    events = latest(read_events(options.labels)).values()
    if not any(r.get("metric") == options.metric and r.get("label") is not None for _, r in events):
        return None
    bars, subset, _, _, predictions = opened(options, options.min)
    return sequential_checks(options, counted(options, subset, predictions), bars)


def counted(options: argparse.Namespace, subset: LabelledSet, predictions: Predictions) -> MetricAgreement:
    """The label rows and the judge's 0/1 view of them, as `validate` measures them but with no bootstrap (a label
    costs a read of the files, not 100 resamples of every figure)."""
    return measure(subset, predictions, certify_settings(options), counts_only=True)


def watch(args: argparse.Namespace, metric: str) -> CertificateWatch:
    """The certificate followed on `--out`: computed now (a bad --predictions stops here, before any label), told on
    stderr."""
    options = validate_args(args, metric)
    read_predictions(options.predictions, metric=metric)
    return CertificateWatch(
        lambda: certificate_now(options), lambda line: print(f"certificate: {line}", file=sys.stderr)
    )


def exit_code(state: str) -> int:
    """0 when certified, 1 when not certified (or still undecided), as `validate --sequential`."""
    return 0 if state == CERTIFIED else 1


def decided_line(followed: CertificateWatch, out: Path) -> str:
    return (
        f"decided: {followed.status()}; no more labels needed. `judgelab validate --labels {out} --predictions ... "
        "--sequential` gives the same"
    )
