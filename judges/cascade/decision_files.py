"""An applied cascade's files: decisions.jsonl (one line per item), summary.md (coverage per judge, escalated
share, cost) and queue.jsonl (the escalated items, a labelling queue `judgelab label serve` opens)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from judges.cascade.applying import Decision
from judges.cascade.calibration_schema import Calibration, write_atomically
from judges.cascade.decision_schema import id_problem
from judges.cascade.sources import Judge
from judges.cascade.streamed import StreamedDecisions
from judges.errors import InputError
from judges.labelling.graded import run_samples
from judges.labelling.queue import QueueItem
from judges.pages.markdown import grid
from judges.runs.run_writer import FolderRecorder
from judges.secrets import known_secrets, scrub_with
from judges.types import Sample


def judge_samples(judges: Sequence[Judge]) -> tuple[dict[str, Sample], list[str]]:
    """The samples' text from the judges that are run folders (a predictions file has none), and a note for each
    run whose samples file cannot be read (its items go to the queue without text)."""
    samples: dict[str, Sample] = {}
    notes = []
    for judge in judges:
        if judge.run_config is None:
            continue
        try:
            found = run_samples(FolderRecorder(judge.source).load())
        except InputError as err:
            notes.append(f"the samples of {judge.name}'s run could not be read ({err}): those items carry no text")
            continue
        for item_id, sample in found.items():
            samples.setdefault(item_id, sample)
    return samples, notes


def queue_of(metric: str, samples: Mapping[str, Sample], calibration: str) -> Callable[[int, str], QueueItem]:
    """How an escalated item becomes the labelling queue's item at its place, for `metric` (with its sample's text
    when a run folder gave it)."""
    selection = {"reason": "escalated: no judge of the cascade was confident enough", "calibration": calibration}

    def queued(position: int, item_id: str) -> QueueItem:
        sample = samples.get(item_id) or Sample(
            input="", references=(), expected_output="", actual_output="", id=item_id
        )
        return QueueItem(position, item_id, metric, sample, selection)

    return queued


def summary_lines(decisions: Collection[Decision], judges: Sequence[Judge], calibration: Calibration) -> list[str]:
    """summary.md: per judge the items it decided, the share escalated, and the cost when the runs carry it."""
    n = len(decisions)
    counted = (
        decisions.counted if isinstance(decisions, StreamedDecisions) else Counter(d.decided_by for d in decisions)
    )
    decided = {judge.name: counted[judge.name] for judge in judges}
    escalated = counted[None]
    reached, reaching = [], n
    for judge in judges:
        reached.append(reaching)
        reaching -= decided[judge.name]
    rows = [
        [judge.name, reach, decided[judge.name], f"{100 * decided[judge.name] / n:.1f}%" if n else "-"]
        for judge, reach in zip(judges, reached, strict=True)
    ]
    rows.append(["people (escalated)", reaching, escalated, f"{100 * escalated / n:.1f}%" if n else "-"])
    lines = [
        f"# Cascade applied: {n} items, {n - escalated} decided by a judge, {escalated} escalated to people",
        "",
        grid(["decided by", "items reaching it", "items decided", "share"], rows),
        "",
        f"Calibrated at target {calibration.target:g}, delta {calibration.delta:g} on "
        f"{calibration.labels.count} labelled items ({calibration.labels.name}).",
    ]
    costs = [judge.cost_per_item for judge in judges]
    if n and all(c is not None for c in costs):
        spent = sum(c * r for c, r in zip(costs, reached, strict=True) if c is not None)
        lines.append(
            f"Cost per 1,000 items: ${1000 * spent / n:.4f} with the cascade against ${1000 * (costs[-1] or 0):.4f} "
            f"with {judges[-1].name} alone."
        )
    else:
        lines.append("Cost: not measured (a predictions file carries no cost; run folders do).")
    return lines


def fingerprints(judges: Sequence[Judge]) -> dict[str, str]:
    """Each run-folder judge's `system_fingerprint` (the one most of its replies carried), by name."""
    found = {}
    for judge in judges:
        seen = judge.identity.system_fingerprints or {}
        if seen:
            found[judge.name] = max(sorted(seen), key=seen.__getitem__)
    return found


def write_decisions(
    out: Path,
    decisions: Collection[Decision],
    summary: list[str],
    queued: Callable[[int, str], QueueItem],
    prints: Mapping[str, str] | None = None,
    slice_of: Callable[[str], str | None] | None = None,
) -> list[Path]:
    """decisions.jsonl, summary.md and queue.jsonl (the escalated items, `queued`) in `out`, each whole or not at
    all: the ids checked before any file, the decisions and the queue written in one pass beside their places and
    renamed over them (a failure leaves no partial file); `prints` the deciding judges' fingerprints by name;
    `slice_of` each item's slice, of a cascade calibrated per slice."""
    checked = isinstance(decisions, StreamedDecisions)  # its first pass checked every id
    for decision in () if checked else decisions:  # before any file: an id no file can hold is one line
        if problem := id_problem(decision.id):
            raise InputError(problem, field="id")
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "decisions.jsonl", out / "queue.jsonl"]
    secrets = known_secrets()
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # when this batch was decided
    temporary = [tempfile.mkstemp(dir=out, prefix=f".{path.name}.", suffix=".tmp") for path in paths]
    try:
        with (
            os.fdopen(temporary[0][0], "w", encoding="utf-8") as lines,
            os.fdopen(temporary[1][0], "w", encoding="utf-8") as queue,
        ):
            escalated = 0
            for decision in decisions:
                record = decision.to_record() | {"timestamp": stamp}
                if prints and (fingerprint := prints.get(decision.decided_by or "")):  # the decider's, when known
                    record["fingerprint"] = fingerprint
                if slice_of is not None and (name := slice_of(decision.id)) is not None:
                    record["slice"] = name
                lines.write(json.dumps(scrub_with(record, secrets), ensure_ascii=False) + "\n")
                if decision.decided_by is None:
                    record = queued(escalated, decision.id).to_record()
                    queue.write(json.dumps(scrub_with(record, secrets), ensure_ascii=False) + "\n")
                    escalated += 1
        for (_, name), path in zip(temporary, paths, strict=True):
            os.replace(name, path)
    finally:
        for _, name in temporary:
            Path(name).unlink(missing_ok=True)
    write_atomically(out / "summary.md", "\n".join(summary) + "\n")
    return [paths[0], out / "summary.md", paths[1]]
