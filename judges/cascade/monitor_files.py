"""The monitor's files: decisions.jsonl and the audit labels read into the arrays it tests, and monitor.json,
monitor.md (its first line the conclusion) and monitor.html (the picture inline) written back."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from judges.cascade.calibration_schema import Calibration
from judges.cascade.decision_schema import read_decisions as checked_decisions
from judges.cascade.monitor_stream import Calibrated, MonitorResult, Stream
from judges.cascade.monitoring import AGREEMENT, Sequence
from judges.errors import InputError
from judges.labels.schema import LabelType
from judges.pages.markdown import grid
from judges.pages.page_template import render_page


def calibrated_of(calibration: Calibration) -> Calibrated:
    """The figures the monitor compares with, from calibration.json read through its schema (and, calibrated per
    slice, each slice's labelled items and what each judge kept of them)."""
    block = calibration.slices
    return Calibrated(
        tuple(judge.name for judge in calibration.judges),
        tuple(judge.kept for judge in calibration.judges),
        calibration.labels.count,
        calibration.target,
        LabelType(calibration.label_type),
        slice_field=None if block is None else block.field,
        by_slice=None
        if block is None
        else {name: (part.items, tuple(j.kept for j in part.judges)) for name, part in block.by_slice.items()},
    )


def read_decisions(path: str, judges: tuple[str, ...]) -> tuple[list[str], Stream, str]:
    """decisions.jsonl in arrival order: by `timestamp` (ISO 8601) when every line has one, else by line (ties keep
    the lines' order); the ids, the stream (no audit yet) and how it was ordered. A bad line is one InputError."""
    if not Path(path).is_file():
        raise InputError("no decisions file here (decisions.jsonl of `cascade apply`)", path=path)
    ids, who, verdicts, stamps, prints, slices = [], [], [], [], [], []
    for line, record in enumerate(checked_decisions(path), start=1):  # each line through decisions.jsonl's schema
        if record.decided_by is not None and record.decided_by not in judges:
            raise InputError(
                f"{record.decided_by!r} is no judge of the calibration ({', '.join(judges)})",
                path=path,
                line=line,
                field="decided_by",
            )
        if record.decided_by is not None and record.verdict is None:
            raise InputError("a kept decision needs its verdict, a number", path=path, line=line, field="verdict")
        if record.timestamp is not None:
            stamps.append(_instant(record.timestamp))
        ids.append(record.id)
        prints.append(record.fingerprint)
        slices.append(record.slice)
        who.append(-1 if record.decided_by is None else judges.index(record.decided_by))
        verdicts.append(math.nan if record.verdict is None or record.decided_by is None else float(record.verdict))
    order = np.arange(len(ids))
    how = "by line (not every decision has a timestamp)"
    if ids and len(stamps) == len(ids):
        order = np.argsort(np.array(stamps, dtype=float), kind="stable")
        how = "by timestamp (lines of one timestamp in their order)"
    stream = Stream(np.array(who, dtype=int)[order], np.array(verdicts, dtype=float)[order])
    if any(prints):
        stream = replace(stream, fingerprints=tuple(prints[i] for i in order))
    if any(name is not None for name in slices):
        stream = replace(stream, slices=tuple(slices[i] for i in order))
    return [ids[i] for i in order], stream, how


def judge_changes(stream: Stream, calibration: Calibration) -> tuple[list[dict[str, Any]], list[str]]:
    """Where each judge's fingerprint changed in the stream (against the calibration's, then the judge's previous
    decision's): monitor.json's entries and monitor.md's lines. Decisions without a fingerprint mark nothing."""
    if stream.fingerprints is None:
        return [], []
    last = {
        n: set((j.identity.system_fingerprints or {}) if j.identity else {}) for n, j in enumerate(calibration.judges)
    }
    changes, lines = [], []
    for position, (judge, fingerprint) in enumerate(zip(stream.decided_by.tolist(), stream.fingerprints, strict=True)):
        if judge < 0 or fingerprint is None:
            continue
        if last[judge] and fingerprint not in last[judge]:
            name, before = calibration.judges[judge].name, ", ".join(sorted(last[judge]))
            changes.append({"judge": name, "decision": position + 1, "from": sorted(last[judge]), "to": fingerprint})
            lines.append(
                f"Judge changed: {name} serves {fingerprint} from decision {position + 1} on (before: {before})."
            )
        last[judge] = {fingerprint}
    return changes, lines


def _instant(value: str) -> float:
    """A timestamp's instant (seconds; checked ISO 8601 by the schema); one without a zone counts as UTC."""
    when = datetime.fromisoformat(value)
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def with_audit(ids: list[str], stream: Stream, labels: Mapping[str, float], source: str) -> tuple[Stream, list[str]]:
    """The stream with its audit labels on the kept decisions they name; notes on labels naming nothing kept. A
    labelled id decided more than once is an InputError (a label must name one decision)."""
    at: dict[str, int] = {}
    audit = np.full(len(ids), np.nan)
    for n, item_id in enumerate(ids):
        if item_id in labels:
            if item_id in at:
                raise InputError(
                    f"the audited item {item_id!r} is decided more than once in the decisions: a label must name one",
                    path=source,
                )
            at[item_id] = n
    unused = 0
    for item_id, label in labels.items():
        if item_id in at and stream.decided_by[at[item_id]] >= 0:
            audit[at[item_id]] = label
        else:
            unused += 1
    notes = [f"{unused} audit labels name no kept decision (escalated or absent): not used"] if unused else []
    return replace(stream, audit=audit), notes


def sequence_record(sequence: Sequence) -> dict[str, Any]:
    low, high = sequence.reference
    tested = sequence.window_of >= 0
    record: dict[str, Any] = {
        "family": sequence.family,
        "judge": sequence.judge,
        "reference": [round(low, 6), round(high, 6)],
        "alpha_per_window": sequence.alpha_window,
        "observations": len(sequence.hits),
        "tested": int(tested.sum()),
        "windows_tested": len(set(sequence.window_of[tested].tolist())),
        "rate": round(float(sequence.hits.mean()), 6) if len(sequence.hits) else None,
        "alarm": None,
        "notes": sequence.notes,
    }
    if sequence.alarm is not None:
        alarm = sequence.alarm
        record["alarm"] = {"window": alarm.window, "at": alarm.at, "position": alarm.position,
                           "bound": round(alarm.bound, 6), "line": alarm.line()}  # fmt: skip
    return record


def monitor_record(result: MonitorResult, settings: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """monitor.json: the conclusion, the settings, the budget, every test with its alarm, the notes."""
    return {
        "conclusion": result.conclusion(),
        "alarm": bool(result.alarms),
        **settings,
        "window": result.plan.window,
        "windows": result.plan.windows,
        "item_window": result.plan.item_window,
        "alpha": result.plan.alpha,
        "alpha_per_test": result.alpha_family,
        "budget_split": f"{result.split()}, each over {result.plan.windows} windows (Bonferroni)",
        "slice_field": result.slice_field,
        "decisions": result.decisions,
        "audit_labels": result.audited,
        "tests": [sequence_record(s) for s in result.sequences],
        "notes": notes,
    }


def explanation(result: MonitorResult) -> list[str]:
    plan, k = result.plan, result.plan.windows
    return [
        f"Each test is a confidence sequence (beta-binomial mixture, Howard, Ramdas, McAuliffe and Sekhon 2021) run "
        f"afresh in each window: {plan.window} audit labels per agreement window, {plan.item_window} decisions per "
        f"window of the share kept and the verdict rate, {k} windows planned (later ones are not tested).",
        f"False alarms: the budget {plan.alpha:g} is split over the {result.split()} ({result.alpha_family:.4g} "
        f"each) and each test's over its {k} windows (Bonferroni), so a deployment that stays like the calibration "
        f"alarms with probability at most {plan.alpha:g} over the whole stream.",
        "Agreement: an alarm when the upper bound of a judge's kept verdicts' agreement with the audit labels falls "
        "below the calibration's target (the target is no longer supported). Share kept: the calibration's share is "
        "an estimate on its labelled items, so its exact two-sided interval takes half the test's budget, and the "
        "alarm needs the window's sequence (the other half) to exclude that whole interval. Verdict rate (share of "
        "positive calls): calibration.json keeps none, so the reference is the first window of decisions, treated "
        "the same way.",
        "Assumptions: audit labels are taken on a random sample of the kept verdicts, independently of their "
        "outcome; within a window the items are exchangeable.",
    ]


HEADERS = ["judge", "test", "reference", "observations (tested)", "rate", "alarm"]


def result_rows(record: dict[str, Any]) -> list[list[Any]]:
    return [
        [t["judge"], t["family"], f"{t['reference'][0]:.3f}" if t["family"] == AGREEMENT else
         f"[{t['reference'][0]:.3f}, {t['reference'][1]:.3f}]", f"{t['observations']} ({t['tested']})",
         "-" if t["rate"] is None else f"{t['rate']:.3f}",
         "-" if t["alarm"] is None else f"window {t['alarm']['window']}, bound {t['alarm']['bound']:.3f}"]
        for t in record["tests"]
    ]  # fmt: skip


def write_monitor(out: Path, record: dict[str, Any], result: MonitorResult, picture: Path) -> list[Path]:
    """monitor.json, monitor.md and monitor.html (the picture inline) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path, html_path = out / "monitor.json", out / "monitor.md", out / "monitor.html"
    json_path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    alarms = [a.line() for a in result.alarms]
    notes = explanation(result) + record["notes"]
    lines = [
        record["conclusion"],
        "",
        *[line for alarm in alarms for line in (alarm, "")],
        grid(HEADERS, result_rows(record)),
        "",
    ]
    lines += [line for text in notes for line in (text, "")]
    lines.append(f"![each sequence over time]({picture.name})")
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    html_path.write_text(
        render_page(
            "cascade_monitor.html.jinja",
            headline=record["conclusion"],
            alarms=alarms,
            headers=HEADERS,
            rows=result_rows(record),
            notes=notes,
            picture=base64.b64encode(picture.read_bytes()).decode(),
        ),
        encoding="utf-8",
    )
    return [json_path, md_path, picture, html_path]
