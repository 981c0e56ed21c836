"""An applied cascade's files: decisions.jsonl (one line per item), summary.md (coverage per judge, escalated
share, cost) and queue.jsonl (the escalated items, a labelling queue `judgelab label serve` opens)."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.cascade.applying import Decision
from judges.cascade.calibration_schema import Calibration, write_atomically
from judges.cascade.decision_schema import DecisionRecord, id_problem
from judges.cascade.sources import Judge
from judges.errors import InputError
from judges.files.jsonl import append_jsonl
from judges.labelling.graded import run_samples
from judges.labelling.queue import QueueItem
from judges.pages.markdown import grid
from judges.runs.run import Run
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
            found = run_samples(Run.load(judge.source))
        except InputError as err:
            notes.append(f"the samples of {judge.name}'s run could not be read ({err}): those items carry no text")
            continue
        for item_id, sample in found.items():
            samples.setdefault(item_id, sample)
    return samples, notes


def queue_of(
    decisions: Sequence[Decision], metric: str, samples: Mapping[str, Sample], calibration: str
) -> Iterator[QueueItem]:
    """The escalated items, in the cascade's order, as a labelling queue for `metric` (made as they are written)."""
    selection = {"reason": "escalated: no judge of the cascade was confident enough", "calibration": calibration}
    escalated = (d.id for d in decisions if d.decided_by is None)
    for position, item_id in enumerate(escalated):
        sample = samples.get(item_id) or Sample(
            input="", references=(), expected_output="", actual_output="", id=item_id
        )
        yield QueueItem(position, item_id, metric, sample, selection)


def summary_lines(decisions: Sequence[Decision], judges: Sequence[Judge], calibration: Calibration) -> list[str]:
    """summary.md: per judge the items it decided, the share escalated, and the cost when the runs carry it."""
    n = len(decisions)
    counted = Counter(d.decided_by for d in decisions)
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


def write_decisions(
    out: Path, decisions: Sequence[Decision], summary: list[str], queue: Iterable[QueueItem]
) -> list[Path]:
    """decisions.jsonl, summary.md and queue.jsonl in `out`, each whole or not at all: the ids checked before any
    file, each file written beside its place and renamed over it (a failure leaves no partial file)."""
    for decision in decisions:  # before any file: an id the files cannot hold is one line, nothing written
        if problem := id_problem(decision.id):
            raise InputError(problem, field="id")
    out.mkdir(parents=True, exist_ok=True)
    lines = (DecisionRecord.of(decision.to_record()).model_dump() for decision in decisions)
    written = [
        write_lines(out / "decisions.jsonl", lines),
        write_atomically(out / "summary.md", "\n".join(summary) + "\n"),
        write_lines(out / "queue.jsonl", (item.to_record() for item in queue)),
    ]
    return written


def write_lines(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """JSON Lines written a record at a time beside `path`, then renamed over it."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as writing:
            for record in records:
                append_jsonl(writing, record)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path
