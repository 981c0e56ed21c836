"""`judgelab cascade calibrate --slice FIELD` and `cascade apply` of its calibration: a cascade per slice."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.cascade.applying import Decision
from judges.cascade.calibration_files import calibration_record
from judges.cascade.calibration_schema import Calibration, calibration_text, write_atomically
from judges.cascade.decision_files import judge_samples, queue_of, summary_lines, write_decisions
from judges.cascade.slice_chain import (
    SliceBars,
    calibrate_by_slice,
    decide_by_slice,
    default_slice_source,
    read_slices,
    slice_thresholds,
    slices_block,
)
from judges.cascade.slice_schema import Slices
from judges.cascade.sources import Judge, open_judges, unread_judge
from judges.cascade.streamed import streamed_decisions
from judges.cascade.verdicts import VerdictRule, shown_number
from judges.errors import InputError


def calibrate_sliced(
    args: argparse.Namespace,
    judges: list[Judge],
    truth: Mapping[str, float],
    slice_of: Mapping[str, str],
    read: tuple[VerdictRule, str, dict[str, Any]],
) -> int:
    """Calibrate each slice's cascade at delta / slices; write calibration.json (its `slices` block) and .md."""
    rule, metric, described = read
    truths: dict[str, dict[str, float]] = {}
    for item_id, label in truth.items():
        truths.setdefault(slice_of[item_id], {})[item_id] = label
    steps = calibrate_by_slice(judges, truths, rule, target=args.target, delta=args.delta, min_kept=args.min_kept)
    block = slices_block(args.slice, steps, {name: len(t) for name, t in truths.items()}, args.delta)
    settings = {"target": args.target, "delta": args.delta, "min_kept": args.min_kept, "cut": rule.cut}
    settings |= {"label_type": rule.label_type.value, "metric": metric}
    record = calibration_record(next(iter(steps.values())), settings=settings, labels=described)
    count = len(truth)
    for place, judge in enumerate(record["judges"]):  # the judges as a whole: each slice has its own threshold
        parts = [entry["judges"][place] for entry in block["by_slice"].values()]
        kept = sum(part["kept"] for part in parts)
        judge |= {"threshold": None, "offered": sum(part["offered"] for part in parts), "kept": kept}
        judge |= {"share_of_items": shown_number(kept / count), "agreement": None, "disagreement_upper_bound": None}
    record["escalated"] = count - sum(judge["kept"] for judge in record["judges"])
    record["escalated_share"] = shown_number(record["escalated"] / count)
    record["slices"] = block
    text = calibration_text(record)  # checked against the schema it is read back with, before any file
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / "calibration.json", text)
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
    write_atomically(out / "calibration.md", "\n".join(lines) + "\n")
    print(lines[0].removeprefix("# "))
    print(f"wrote {out / 'calibration.json'}, {out / 'calibration.md'}")
    return 0


def shown(threshold: float | None) -> str:
    return "-" if threshold is None else f"{threshold:.4f}"


def apply_sliced(
    args: argparse.Namespace,
    calibration: Calibration,
    block: Slices,
    sources: Sequence[tuple[str, str]],
    rule: VerdictRule,
) -> int:
    """Each item decided by its slice's thresholds, a line at a time when the files line up; an item of a slice
    never calibrated escalated, counted and named in summary.md."""
    thresholds, metric = slice_thresholds(block), calibration.metric
    table = None if args.slices is None else read_slices(args.slices, block.field)
    bars = SliceBars(block.field, thresholds, table)
    decisions: Collection[Decision] | None = streamed_decisions(sources, bars, rule)  # files that line up
    never: Counter[str | None] = bars.never.copy()  # counted on the pass that checked the files, not again
    slice_now: Callable[[str], str | None] = bars.slice_now  # each decision's slice, recorded in decisions.jsonl
    if decisions is not None:
        if not bars.found:
            raise InputError(
                f"no item has the slice field {block.field!r} the calibration was made by", path=sources[0][1]
            )
        judges = [unread_judge(name, source, metric) for name, source in sources]
        samples, notes = judge_samples([])  # predictions files carry no text
    else:
        judges = open_judges(args.predictions, metric, [name for name, _ in sources])
        slice_of = table if table is not None else read_slices(default_slice_source(judges), block.field)
        decisions, escalated = decide_by_slice(judges, thresholds, slice_of, rule)
        slice_now = slice_of.get
        never = Counter(slice_of.get(item_id) for item_id in escalated)
        samples, notes = judge_samples(judges)
    lines = summary_lines(decisions, judges, calibration) + notes
    if never:
        lines += [
            "",
            f"{sum(never.values())} items of a {block.field} never calibrated (or with none) were escalated: "
            + ", ".join(sorted(str(name) for name in never)),
        ]
    queued = queue_of(metric, samples, args.calibration)
    written = write_decisions(Path(args.out), decisions, lines, queued, slice_of=slice_now)
    print(lines[0].removeprefix("# "))
    if never:
        print(lines[-1])
    print(f"wrote {', '.join(str(p) for p in written)}")
    return 0
