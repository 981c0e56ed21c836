"""An applied cascade's files: decisions.jsonl (one line per item), summary.md (coverage per judge, escalated
share, cost) and queue.jsonl (the escalated items, a labelling queue `judgelab label serve` opens)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.cascade.applying import Decision
from judges.cascade.sources import Judge
from judges.errors import InputError
from judges.files.jsonl import append_jsonl
from judges.labelling.graded import run_samples
from judges.labelling.queue import QueueItem, write_queue
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
) -> list[QueueItem]:
    """The escalated items, in the cascade's order, as a labelling queue for `metric`."""
    escalated = [d.id for d in decisions if d.decided_by is None]
    return [
        QueueItem(
            position,
            item_id,
            metric,
            samples.get(item_id) or Sample(input="", references=(), expected_output="", actual_output="", id=item_id),
            {"reason": "escalated: no judge of the cascade was confident enough", "calibration": calibration},
        )
        for position, item_id in enumerate(escalated)
    ]


def summary_lines(decisions: Sequence[Decision], judges: Sequence[Judge], calibration: Mapping[str, Any]) -> list[str]:
    """summary.md: per judge the items it decided, the share escalated, and the cost when the runs carry it."""
    n = len(decisions)
    decided = {judge.name: sum(d.decided_by == judge.name for d in decisions) for judge in judges}
    escalated = sum(d.decided_by is None for d in decisions)
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
        f"Calibrated at target {calibration['target']:g}, delta {calibration['delta']:g} on "
        f"{calibration['labels']['count']} labelled items ({calibration['labels']['name']}).",
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


def write_decisions(out: Path, decisions: Sequence[Decision], summary: list[str], queue: list[QueueItem]) -> list[Path]:
    """decisions.jsonl, summary.md and queue.jsonl in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "decisions.jsonl"
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # when this batch was decided
    with path.open("w", encoding="utf-8") as handle:
        for decision in decisions:
            append_jsonl(handle, decision.to_record() | {"timestamp": stamp})
    (out / "summary.md").write_text("\n".join(summary) + "\n", encoding="utf-8")
    return [path, out / "summary.md", write_queue(out / "queue.jsonl", queue)]
