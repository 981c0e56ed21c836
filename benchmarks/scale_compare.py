"""Records of two runs compared on what the judge said: every field but a call's latency, cached flag and price
(which differ by how a reply came: online, from a batch, from a Ray worker), its number (the order calls started
in, which differs between two online runs too) and the item's usage totals."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from judges.records import ItemRecord, Usage

PER_CALL = ("call", "latency_s", "cached", "cost")  # "call": the run's numbering, in the order calls started


def comparable(records: list[ItemRecord]) -> list[ItemRecord]:
    """`records` without what differs by how a reply came (see the module docstring), in run order."""
    out = []
    for record in records:
        metrics = {
            name: dataclasses.replace(
                metric, calls=[{k: v for k, v in c.items() if k not in PER_CALL} for c in metric.calls]
            )
            for name, metric in record.metrics.items()
        }
        out.append(dataclasses.replace(record, metrics=metrics, usage=Usage()))
    return sorted(out, key=lambda r: (r.draw, r.order))


def read_records(folder: Path) -> list[ItemRecord]:
    """The typed records of the run folder `folder` (its results.jsonl)."""
    with (folder / "results.jsonl").open(encoding="utf-8") as handle:
        return [ItemRecord.from_json_line(line) for line in handle if line.strip()]


def same_records(a: Path, b: Path) -> bool:
    return comparable(read_records(a)) == comparable(read_records(b))
