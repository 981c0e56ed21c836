"""`judgelab validate --sequential` (certify as labels arrive) and `validate --plan` (the labels a certificate needs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judges.agreement.label_plan import POWER, PlanRow, plan_row
from judges.agreement.sequential_certification import (
    CONSTRUCTION,
    PROPORTIONS,
    SequentialResult,
    certify_in_order,
    extended_from,
    order_sha256,
    proportion_bars,
)
from judges.errors import ConfigError
from judges.runs.folder import default_run_dir

RUNS = Path("results/runs")  # where validations are kept unless --out says otherwise: the run history
PLAN_ONLY = ("expect_recall", "expect_specificity", "expect", "prevalence")
SEQUENTIAL_HINT = (
    "note: these labels extend the {rows} validated before (the same first rows, in order); a fixed-n bound "
    "re-checked after more labels no longer holds its 95%: re-check with --sequential"
)


def add_sequential_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "as labels arrive (--sequential) and before labelling (--plan): anytime-valid bounds, labels planned"
    )
    group.add_argument(
        "--sequential",
        action="store_true",
        default=None,
        help="with --labels: bound each proportion (sensitivity, specificity, accuracy, agreement) with a one-sided "
        "95%% confidence sequence valid at every number of labels at once (beta-binomial mixture); labels count "
        "in the order given, and the record names the count at which the certificate was first decided",
    )
    group.add_argument(
        "--plan",
        action="store_true",
        default=None,
        help="no labels, no judge: the labelled items that give the certificate with 80%% probability if the judge "
        "is as good as --expect-recall/--expect-specificity/--expect say, fixed-n and sequential, per class",
    )
    group.add_argument("--expect-recall", type=float, metavar="R", help="--plan: the judge's expected sensitivity")
    group.add_argument("--expect-specificity", type=float, metavar="R", help="--plan: its expected specificity")
    group.add_argument(
        "--expect", action="append", metavar="STAT=VALUE", help="--plan: an expected rate, e.g. --expect accuracy=0.9"
    )
    group.add_argument("--prevalence", type=float, metavar="P", help="--plan: the share of items labelled 1")


def _rate(flag: str, value: float | None) -> None:
    if value is not None and not 0 < value < 1:
        raise ConfigError(f"{flag}: a rate strictly between 0 and 1, e.g. 0.9; got {value:g}")


def expectations(args: argparse.Namespace, given: dict[str, float]) -> dict[str, float]:
    """The expected rates by record name: --expect-recall, --expect-specificity and every --expect STAT=VALUE."""
    expected = {}
    if args.expect_recall is not None:
        expected["sensitivity (tpr)"] = args.expect_recall
    if args.expect_specificity is not None:
        expected["specificity (tnr)"] = args.expect_specificity
    for name, value in given.items():
        if name not in PROPORTIONS:
            raise ConfigError(f"--expect {name}=...: a proportion ({', '.join(PROPORTIONS)})")
        expected[PROPORTIONS[name][0]] = value
    for name, value in expected.items():
        _rate(f"expected {name}", value)
    return expected


def plan(args: argparse.Namespace, bars_given: dict[str, float], expect_given: dict[str, float]) -> int:
    """Print the labels a certificate needs, per bar, fixed-n and sequential; no labels read, nothing called."""
    if args.labels is not None or args.predictions is not None:
        raise ConfigError("--plan reads no labels and no predictions: drop --labels/--predictions")
    _rate("--prevalence", args.prevalence)
    bars = proportion_bars(args.min_recall, bars_given)
    if not bars:
        raise ConfigError("--plan: give the bars, --min-recall R or --min STAT=VALUE (e.g. --min accuracy=0.8)")
    expected = expectations(args, expect_given)
    prevalence = args.prevalence
    sens, spec = expected.get("sensitivity (tpr)"), expected.get("specificity (tnr)")
    for pooled in ("accuracy", "agreement"):
        if pooled not in expected and None not in (sens, spec, prevalence):
            expected[pooled] = prevalence * sens + (1 - prevalence) * spec  # type: ignore[operator]
    rows = []
    for name, (bar, counted) in bars.items():
        _rate(f"the bar on {name}", bar)
        if name not in expected:
            raise ConfigError(
                f"--plan: no expected rate for {name}: give --expect-recall, --expect-specificity or --expect"
            )
        if counted is not None and prevalence is None:
            raise ConfigError(f"--plan: {name} counts one class: give --prevalence P (the share of items labelled 1)")
        share = 1.0 if counted is None else (prevalence if counted == 1 else 1 - prevalence)
        who = "all items" if counted is None else ("positives" if counted == 1 else "negatives")
        rows.append(plan_row(name, bar, expected[name], who, share, seed=getattr(args, "seed", 0) or 0))
    print(
        f"labels for the certificate with {POWER:.0%} probability per bar if the judge is as expected (one-sided 95%):"
    )
    for row in rows:
        print(plan_line(row))
    print(total_line(rows))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        record = {"mode": "plan", "power": POWER, "prevalence": prevalence, "bars": [r.to_dict() for r in rows]}
        (out / "plan.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 0


def plan_line(row: PlanRow) -> str:
    head = f"  {row.statistic} >= {row.bar:g}, expected {row.expected:g}, on {row.rows}"
    if row.fixed is None:
        return f"{head}: no number of labels (the expected rate is not above the bar)"
    if row.rows == "all items":
        return f"{head}: fixed-n {row.fixed} items; sequential {row.sequential} items"
    return (
        f"{head}: fixed-n {row.fixed} {row.rows} ({row.items(row.fixed)} items), "
        f"sequential {row.sequential} {row.rows} ({row.items(row.sequential)} items)"
    )


def total_line(rows: list[PlanRow]) -> str:
    fixed = [n for n in (row.items(row.fixed) for row in rows) if n is not None]
    sequential = [n for n in (row.items(row.sequential) for row in rows) if n is not None]
    if len(fixed) < len(rows) or len(sequential) < len(rows):
        return "in all: no number of labels certifies every bar at these expected rates"
    return (
        f"in all: fixed-n {max(fixed)} labelled items, sequential {max(sequential)} (at the expected class shares; "
        "each bar reaches its chance alone, all bars at once somewhat less when two bind)"
    )


def earlier_records(out: Path | None) -> list[dict[str, Any]]:
    """The certification.json files of earlier validations: the run history, and the --out folder's own."""
    paths = sorted(RUNS.glob("*/certification.json")) if RUNS.is_dir() else []
    if out is not None and (out / "certification.json").is_file():
        paths.append(out / "certification.json")
    records = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # an unreadable record of another run is no reason to stop this one
        if isinstance(data, dict):
            records.append(data)
    return records


def order_record(labels: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The label rows in order and their fingerprint (rows, sha256), as certification.json keeps it."""
    records = [item.to_record() for item in labels.items]
    return records, {"rows": len(records), "sha256": order_sha256(records)}


def extension_note(labels: Any, out: Path | None) -> str | None:
    """One line when these labels extend a set validated before (plain validate only)."""
    records, _ = order_record(labels)
    rows = extended_from(records, earlier_records(out))
    return None if rows is None else SEQUENTIAL_HINT.format(rows=rows)


def sequential_checks(args: argparse.Namespace, result: Any, bars: dict[str, float]) -> SequentialResult:
    """Every proportion's bar followed over the label rows in the order given (binary labels, 0/1 verdicts)."""
    chosen = proportion_bars(args.min_recall, bars)
    if not chosen:
        raise ConfigError("--sequential: give --min-recall R or --min STAT=VALUE on a proportion")
    if result.rows is None or result.label_type.value != "binary":
        raise ConfigError("--sequential bounds proportions of binary labels: these labels are not binary")
    if not (result.judge_scale.binary or result.judge_scale.threshold is not None):  # no 0/1 verdicts (nor a cut)
        raise ConfigError("the judge's scores are not 0/1 grades: give --threshold T to cut them")
    return certify_in_order(result.rows.human, result.rows.views["binary"], chosen)


def sequential_record(sequence: SequentialResult, order: dict[str, Any]) -> dict[str, Any]:
    """certification.json's part for --sequential: the mode, the labels seen and where the decision came."""
    return {
        "certified": sequence.state == "certified",
        "state": sequence.state,
        "mode": "sequential",
        "level": f"one-sided 95% anytime-valid bounds: {CONSTRUCTION}",
        "labels_seen": sequence.labels_seen,
        "decided_at": sequence.decided_at,
        "labels_order": order,
        "checks": [check.to_dict() for check in sequence.checks],
    }


def sequential_verdict(sequence: SequentialResult, written: str) -> str:
    at = sequence.decided_at
    if at is None:
        return (
            f"UNDECIDED after {sequence.labels_seen} labels: label more and re-run with --sequential (each look "
            f"keeps its 95%); wrote {written}"
        )
    return f"{sequence.state.upper()} at {at} of {sequence.labels_seen} labels (decided then: stop labelling); wrote {written}"


def certify_sequential(
    args: argparse.Namespace, labels: Any, result: Any, bars: dict[str, float], described: dict[str, Any]
) -> int:
    """Certify as labels arrived: write certification.json (mode sequential), print each bar and the verdict;
    0 when certified, 1 when not certified or still undecided."""
    sequence = sequential_checks(args, result, bars)
    _, order = order_record(labels)
    out = Path(args.out) if args.out else default_run_dir(RUNS, "certify", labels.name)
    out.mkdir(parents=True, exist_ok=True)
    record = sequential_record(sequence, order) | described
    (out / "certification.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    for check in sequence.checks:
        print(check.describe())
    print(sequential_verdict(sequence, f"{out}/certification.json"))
    return 0 if sequence.state == "certified" else 1


def check_flags(args: argparse.Namespace, bars: dict[str, float]) -> None:
    """One line when a planning flag comes without --plan, or --sequential with a bar on no proportion (before
    anything is read)."""
    given = [f"--{n.replace('_', '-')}" for n in PLAN_ONLY if getattr(args, n, None) is not None]
    if given:
        raise ConfigError(f"{', '.join(given)}: only with --plan (planning the labels a certificate needs)")
    if args.sequential and args.labels is not None:
        proportion_bars(args.min_recall, bars)
