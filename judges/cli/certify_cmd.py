"""`judgelab validate --labels`: certify a judge's outputs on labels before it gates (lower bounds against bars)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judges.agreement import certify as certifying
from judges.agreement.agreement_settings import CUT, OPTIONS, AgreementSettings, checked_settings
from judges.agreement.predictions import read_predictions
from judges.cli import sequential_cmd as sequential
from judges.cli.agreement_cmd import add_label_options, label_reading
from judges.cli.cascade_cmd import ONE_METRIC, labels_sha256
from judges.cli.options import add_model_options, given_fields
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.files.checked import read_json_file
from judges.labels.schema import LabelledSet, LabelType
from judges.runs.folder import default_run_dir
from judges.runs.run_identity import source_identity
from judges.runs.run_writer import FolderRecorder
from judges.tuning.manifest import MANIFEST_NAME, read_manifest

# the measuring flags of the certify mode, made from agreement's settings (their defaults the model's); a command's
# own wording where the field means more there than here
MEASURING = ("metric", "policy", "resamples", "id_field", "score_field", "higher_is_better", "threshold")
WORDING = {**ONE_METRIC, "threshold": "cut of a continuous score on binary labels"}
CERTIFY_ONLY = (
    *("predictions", "min_recall", "chosen_by", "columns", "label_map", "label_type", "scale", *MEASURING),
    *("sequential", "slice"),
)
GATE_ONLY = {"tests": "--tests", "limit": "--limit", "max": "--max", "config": "--config", "junit": "--junit"}
GATE_ONLY |= {"dry_run": "--dry-run", "baseline": "--baseline"}
OPTIMISTIC = {
    "tuned prompts": "optimistic: these labels chose the prompts",
    "cascade calibration": "optimistic: these labels chose the cascade's thresholds",
}


def add_certify_options(parser: argparse.ArgumentParser) -> None:
    """The certify mode's options (`--labels` switches to it); none has a default, so what was given is known."""
    group = parser.add_argument_group(
        "certify on labels (--labels): the judge's outputs against human labels, read as `judgelab agreement` "
        "reads them; exit 1 when a 95% lower bound misses its bar"
    )
    group.add_argument("--labels", metavar="SET_OR_FILE", help="labelled items, as `agreement` reads them")
    group.add_argument(
        "--predictions", metavar="SOURCE", help="the judge's outputs: a predictions file or a judgelab run folder"
    )
    group.add_argument(
        "--min-recall",
        type=float,
        metavar="R",
        help="binary labels: the one-sided 95%% exact (Clopper-Pearson) lower bounds of sensitivity and specificity "
        "must both reach R; other statistics with --min STAT=VALUE (their bootstrap interval's lower end)",
    )
    group.add_argument(
        "--slice",
        metavar="FIELD",
        help="certified only when every slice of the labels by FIELD (metric, system, domain: any label field or "
        "column) reaches every bar (an intersection-union test, each slice at 95%%); the pooled figure beside",
    )
    add_model_options(
        parser, AgreementSettings, groups=dict.fromkeys((OPTIONS, CUT), group), only=MEASURING, helps=WORDING
    )
    group.add_argument(
        "--chosen-by",
        action="append",
        metavar="PATH",
        help="a tuned prompt folder (its manifest.json) or a cascade calibration.json: named as reused when its "
        "labels are these (a run folder's own tuned prompts are checked without it)",
    )
    add_label_options(group)


def check_mode(args: argparse.Namespace) -> None:
    """One line when flags of the two modes are mixed (the unit-test gate, or certifying on --labels)."""
    if args.labels is None:
        given = [flag_given(args, name) for name in CERTIFY_ONLY if getattr(args, name, None) is not None]
        if given:
            raise ConfigError(f"{', '.join(given)}: only with --labels (certifying a judge's outputs on labels)")
        return
    gate = [flag for name, flag in GATE_ONLY.items() if getattr(args, name, None) not in (None, False)]
    judge = [
        f"--{name.replace('_', '-')}" for name in JudgeConfig.model_fields if name != "seed" and hasattr(args, name)
    ]
    if gate or judge:
        raise ConfigError(
            f"--labels certifies outputs already made and calls no judge: drop {', '.join(gate + judge)} "
            "(they belong to the unit-test gate)"
        )
    if args.predictions is None:
        raise ConfigError("--labels needs --predictions SOURCE (a predictions file or a run folder)")
    if args.min_recall is not None and not 0 < args.min_recall <= 1:
        raise ConfigError(f"--min-recall: a rate in (0, 1], e.g. 0.8; got {args.min_recall:g}")


def flag_given(args: argparse.Namespace, name: str) -> str:
    """The flag that set `name` (`--lower-is-better` for a judge's direction turned)."""
    if name == "higher_is_better" and not args.higher_is_better:
        return "--lower-is-better"
    return f"--{name.replace('_', '-')}"


def certify_settings(args: argparse.Namespace) -> AgreementSettings:
    """How the flags given measure the judge's outputs on the labels (a flag not given: the model's default), checked
    as `judgelab agreement` checks its own."""
    return checked_settings(AgreementSettings, given_fields(args, AgreementSettings))


def statistic_bars(texts: list[str] | None, flag: str = "--min") -> dict[str, float]:
    """`--min STAT=VALUE` bars on agreement statistics (e.g. --min cohen_kappa=0.6), each in its statistic's range
    (`--expect STAT=VALUE`, the values a plan assumes, likewise)."""
    from judges.agreement.certification import check_bar  # defers numpy

    bars: dict[str, float] = {}
    for text in texts or []:
        name, sep, value = text.partition("=")
        try:
            bars[name.strip()] = float(value)
        except ValueError:
            raise ConfigError(f"bad {flag} {text!r}: expected STAT=VALUE, e.g. {flag} cohen_kappa=0.6") from None
        if not sep or not name.strip():
            raise ConfigError(f"bad {flag} {text!r}: expected STAT=VALUE, e.g. {flag} cohen_kappa=0.6")
        check_bar(name.strip(), bars[name.strip()], flag)
    return bars


def reuse_entry(path: Path, spec: str, labels: LabelledSet, sha256: str) -> dict[str, Any]:
    """Whether the labels that chose a tuned folder's prompts, or a cascade's thresholds, are these labels."""
    folder = path if path.is_dir() else path.parent
    if path.is_dir() and (path / MANIFEST_NAME).is_file():
        data, kind = read_manifest(path), "tuned prompts"
    elif path.name == MANIFEST_NAME:
        data, kind = read_manifest(folder), "tuned prompts"
    else:
        data = read_json_file(path / "calibration.json" if path.is_dir() else path)
        kind = "cascade calibration"
    if not isinstance(data, dict):
        raise ConfigError(f"--chosen-by {path}: neither a tuned prompt folder (manifest.json) nor a calibration.json")
    recorded = certifying.labels_hash_in(data)
    matched = "sha256" if recorded == sha256 else certifying.same_labels(data.get("labels"), spec, labels)
    entry: dict[str, Any] = {"path": str(path), "kind": kind, "reused": matched is not None, "matched_on": matched}
    if matched:
        entry["note"] = OPTIMISTIC[kind]
    return entry


def reuse_of(args: argparse.Namespace, labels: LabelledSet, sha256: str) -> list[dict[str, Any]]:
    """Every --chosen-by record, and the tuned prompts a run folder's config names, checked for these labels."""
    paths = [Path(p) for p in args.chosen_by or []]
    source = Path(args.predictions)
    if source.is_dir():
        folder = FolderRecorder(source).load().config.prompts_folder
        if folder and (Path(folder) / MANIFEST_NAME).is_file():
            paths.append(Path(folder))
    return [reuse_entry(path, args.labels, labels, sha256) for path in paths]


def opened(args: argparse.Namespace, texts: list[str] | None, keep: tuple[str, ...] = ()) -> tuple[Any, ...]:
    """The bars, the labels of the one metric, whether they are binary, and the judge's outputs on them."""
    check_mode(args)
    bars = statistic_bars(texts)
    settings = certify_settings(args)
    labels = label_reading(args).open(args.labels, keep=keep)
    metrics = [settings.metric] if settings.metric else labels.metrics()
    if len(metrics) != 1:
        raise ConfigError(f"--metric: the labels have several metrics ({', '.join(metrics)}); choose one")
    subset = labels.for_metric(metrics[0])
    binary = subset.items[0].label_type is LabelType.BINARY
    if args.min_recall is not None and not binary:
        raise ConfigError("--min-recall is for binary labels; bound another statistic with --min STAT=VALUE")
    if args.min_recall is None and not bars:
        raise ConfigError("nothing to certify: give --min-recall R (binary labels) or --min STAT=VALUE")
    predictions = read_predictions(
        args.predictions,
        id_field=settings.id_field,
        score_field=settings.score_field,
        metric=metrics[0],
        scale=subset.items[0].scale,
    )
    return bars, subset, metrics[0], binary, predictions


def measured(args: argparse.Namespace, subset: LabelledSet, predictions: Any) -> Any:
    """The judge's agreement with the labels, its bootstrap intervals at the level of a one-sided 95% bound."""
    return certifying.measured(subset, predictions, certify_settings(args))


def bound_checks(args: argparse.Namespace, result: Any, subset: LabelledSet, bars: dict[str, float]) -> list[Any]:
    """Every bar's check on these labels, settled by the labels per class (`judges.agreement.certify`)."""
    return certifying.bound_checks(result, subset, bars, args.min_recall)


def certify(args: argparse.Namespace, texts: list[str] | None) -> int:
    """Certify the judge's outputs on the labels; 0 when every bound reaches its bar, 1 when one misses."""
    bars, subset, metric, _, predictions = opened(args, texts)
    result = measured(args, subset, predictions)
    sha256 = labels_sha256(subset)
    if getattr(args, "sequential", None):  # every bar over the labels in order (sequential_cmd.py)
        described: dict[str, Any] = {"predictions": {"source": args.predictions, "metric": metric}}
        described["judge_identity"] = source_identity(args.predictions).to_json()  # who judged (a file: null fields)
        described["labels"] = {"name": subset.name, "spec": args.labels, "source": subset.source, "sha256": sha256}
        described |= {"reused": reuse_of(args, subset, sha256), "agreement": result.to_dict()}
        return sequential.certify_sequential(args, subset, result, bars, described)
    checks = bound_checks(args, result, subset, bars)
    described = {
        "labels": {"name": subset.name, "spec": args.labels, "source": subset.source, "sha256": sha256},
        "predictions": {"source": args.predictions, "metric": metric},
        "judge_identity": source_identity(args.predictions).to_json(),  # who judged (a file: null fields)
        "reused": reuse_of(args, subset, sha256),
    }
    _, order = sequential.order_record(subset)  # the labels in order: a later validate sees them extended
    record = certifying.certification_record(checks, result, described, order)
    out = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "certify", subset.name)
    note = sequential.extension_note(subset, out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "certification.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    for check in checks:
        print(check.describe())
    for entry in record["reused"]:
        if entry["reused"]:
            print(f"reused: {entry['kind']} {entry['path']} ({entry['note']})")
    if note:
        print(note)
    print(certifying.verdict_line(checks, f"{out}/certification.json"))
    return 0 if record["certified"] else 1
