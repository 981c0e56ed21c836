"""The labelling queue file: one item per line with its sample and why it was chosen; and its Markdown report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.jsonl import append_jsonl, read_jsonl
from judges.labelling.graded import GradedPool
from judges.labelling.selection import AGREEMENT_WEIGHT, Draw
from judges.pages.markdown import grid
from judges.types import Sample


@dataclass(frozen=True)
class QueueItem:
    """One item to label: its place in the queue, id, metric, the sample, and the selection record
    (stratum, disagreement, inclusion probability, weight). No judge grade is kept here."""

    position: int
    id: str
    metric: str
    sample: Sample
    selection: Mapping[str, Any] = field(default_factory=dict)

    @property
    def weight(self) -> float | None:
        value = self.selection.get("weight")
        return float(value) if isinstance(value, (int, float)) else None

    def to_record(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "id": self.id,
            "metric": self.metric,
            "input": self.sample.input,
            "references": list(self.sample.references or ()),
            "expected_output": self.sample.expected_output,
            "actual_output": self.sample.actual_output,
            "selection": dict(self.selection),
        }


def queue_items(pool: GradedPool, drawn: Draw, runs: list[str]) -> list[QueueItem]:
    return [
        QueueItem(
            position,
            chosen.id,
            pool.metric,
            pool.samples[chosen.id],
            {
                "stratum": chosen.stratum,
                "disagreement": chosen.disagreement,
                "stratum_size": chosen.stratum_size,
                "stratum_draws": chosen.stratum_draws,
                "inclusion_probability": round(chosen.inclusion_probability, 12),
                "weight": round(chosen.weight, 12),
                "population": drawn.population,
                "uniform": drawn.uniform,
                "seed": drawn.seed,
                "runs": runs,
            },
        )
        for position, chosen in enumerate(drawn.chosen)
    ]


def write_queue(path: str | Path, items: list[QueueItem]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            append_jsonl(handle, item.to_record())
    return path


def parse_queue_item(record: dict[str, Any], *, path: str, line: int) -> QueueItem:
    for name in ("id", "metric", "actual_output"):
        if record.get(name) is None:
            raise InputError("missing field", path=path, line=line, field=name)
    references = record.get("references") or []
    if isinstance(references, str):
        references = [references]
    selection = record.get("selection") or {}
    if not isinstance(selection, dict):
        raise InputError("expected an object", path=path, line=line, field="selection")
    sample = Sample(
        input=record.get("input"),
        references=tuple(str(r) for r in references),
        expected_output=record.get("expected_output"),
        actual_output=str(record["actual_output"]),
        id=str(record["id"]),
    )
    return QueueItem(int(record.get("position", line - 1)), str(record["id"]), str(record["metric"]), sample, selection)


def read_queue(path: str | Path) -> list[QueueItem]:
    """A queue file in its order; ids are unique."""

    items: list[QueueItem] = []
    seen: dict[str, int] = {}
    for line, record in read_jsonl(path):
        item = parse_queue_item(record, path=str(path), line=line)
        if item.id in seen:
            raise InputError(f"duplicate id {item.id!r} (first on line {seen[item.id]})", path=str(path), line=line)
        seen[item.id] = line
        items.append(item)
    if not items:
        raise InputError("the queue holds no items", path=str(path))
    return sorted(items, key=lambda item: item.position)


def queue_report(pool: GradedPool, drawn: Draw, queue_path: str) -> str:
    """What was drawn and how to weigh it: strata sizes and draws, and the inverse-probability weights."""
    over = sum(c.disagreement > 0 for c in drawn.chosen)
    share_population = sum(size for name, (size, _) in drawn.strata.items() if not name.endswith("none"))
    lines = [
        f"# Labelling queue: {pool.metric}",
        "",
        f"{len(drawn.chosen)} of {drawn.population} graded items drawn (seed {drawn.seed}) from the runs of "
        f"{', '.join(pool.judges)}; the queue is `{queue_path}`.",
        f"Items where the judges disagree: {over} of {len(drawn.chosen)} in the queue, "
        f"{share_population} of {drawn.population} in the population.",
    ]
    if pool.left_out:
        lines.append(f"{pool.left_out} items graded by some runs but not all were left out.")
    rows = [
        [name, size, k, f"{k / size:.4g}", f"{size / k:.4g}" if k else "-"] for name, (size, k) in drawn.strata.items()
    ]
    lines += ["", grid(["stratum", "items", "drawn", "inclusion probability", "weight"], rows)]
    lines.append("")
    if drawn.uniform:
        lines.append(
            "The draw was uniform: every graded item had the same chance of being drawn, so agreement on the "
            "labelled items estimates agreement on all of them without reweighting."
        )
    else:
        lines.append(
            "The draw was not uniform: strata where the judges disagree were drawn more densely (relative density "
            f"{AGREEMENT_WEIGHT:g} + mean spread). Each queue line keeps its inclusion probability and weight "
            "(1 / probability); the labels carry them, and `judgelab agreement` reports population-weighted "
            "figures (inverse-probability weights) beside the plain ones. Unweighted figures describe the "
            "labelled items, which over-represent the hard ones."
        )
        if any(k == 0 for _, k in drawn.strata.values()):
            lines.append(
                "Some strata got no item (the queue is shorter than the number of strata): the weighted figures "
                "cannot speak for them."
            )
    return "\n".join(lines) + "\n"
