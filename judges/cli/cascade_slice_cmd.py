"""`judgelab cascade calibrate --slice FIELD` and `cascade apply` of its calibration: a cascade per slice."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from judges.cascade.calibration_files import METHOD
from judges.cascade.decision_files import judge_samples, queue_of, summary_lines, write_decisions
from judges.cascade.slice_chain import (
    calibrate_by_slice,
    decide_by_slice,
    default_slice_source,
    read_slices,
    slice_thresholds,
    slices_block,
)
from judges.cascade.sources import Judge
from judges.cascade.verdicts import VerdictRule, item_labels
from judges.labels.schema import LabelledSet
from judges.labels.slices import check_slice_field, split_by


def calibrate_sliced(
    args: argparse.Namespace, judges: list[Judge], subset: LabelledSet, rule: VerdictRule, sha256: str
) -> int:
    """Calibrate each slice's cascade at delta / slices; write calibration.json (its `slices` block) and .md."""
    check_slice_field(subset, args.slice)
    truths = {name: item_labels(part) for name, part in split_by(subset, args.slice).items()}
    steps = calibrate_by_slice(judges, truths, rule, target=args.target, delta=args.delta, min_kept=args.min_kept)
    block = slices_block(args.slice, steps, {name: len(t) for name, t in truths.items()}, args.delta)
    count = sum(len(t) for t in truths.values())
    kept = {j.name: sum(e["judges"][k]["kept"] for e in block["by_slice"].values()) for k, j in enumerate(judges)}
    record: dict[str, Any] = {
        "method": METHOD,
        "target": args.target,
        "delta": args.delta,
        "min_kept": args.min_kept,
        "cut": args.threshold,
        "label_type": rule.label_type.value,
        "metric": subset.items[0].metric,
        "labels": {"name": subset.name, "spec": args.labels, "sha256": sha256, "count": count},
        # the judges as a whole: no one threshold (each slice has its own, under `slices`)
        "judges": [{"name": j.name, "source": j.source, "threshold": None, "kept": kept[j.name]} for j in judges],
        "escalated": count - sum(kept.values()),
        "slices": block,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    lines = [
        f"# A cascade per {args.slice}: target {args.target:g} on every slice at once, delta {args.delta:g} split "
        f"over {len(steps)} slices ({block['delta_each']:.4g} each)",
        "",
        "| slice | items | " + " | ".join(f"{j.name} threshold | kept" for j in judges) + " | escalated |",
        "|---|---:|" + "---:|---:|" * len(judges) + "---:|",
    ]
    for name, entry in block["by_slice"].items():
        cells = [f"{shown(e['threshold'])} | {e['kept']}" for e in entry["judges"]]
        left = entry["items"] - sum(e["kept"] for e in entry["judges"])
        lines.append(f"| {name} | {entry['items']} | " + " | ".join(cells) + f" | {left} |")
    (out / "calibration.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(lines[0].removeprefix("# "))
    print(f"wrote {out / 'calibration.json'}, {out / 'calibration.md'}")
    return 0


def shown(threshold: float | None) -> str:
    return "-" if threshold is None else f"{threshold:.4f}"


def apply_sliced(args: argparse.Namespace, calibration: dict[str, Any], judges: list[Judge], rule: VerdictRule) -> int:
    """Each item decided by its slice's thresholds; an item of a slice never calibrated escalated, counted and said."""
    field, thresholds = slice_thresholds(calibration, args.calibration)
    slice_of = read_slices(args.slices or default_slice_source(judges), field)
    decisions, never = decide_by_slice(judges, thresholds, slice_of, rule)
    samples, notes = judge_samples(judges)
    lines = summary_lines(decisions, judges, calibration) + notes
    if never:
        lines += [
            "",
            f"{len(never)} items of a {field} never calibrated (or with none) were escalated: "
            + ", ".join(sorted({str(slice_of.get(i)) for i in never})),
        ]
    metric = str(calibration["metric"])
    queue = queue_of(decisions, metric, samples, args.calibration)
    written = write_decisions(Path(args.out), decisions, lines, queue)
    print(lines[0].removeprefix("# "))
    if never:
        print(lines[-1])
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
