"""ProbeTask: each sample judged as it is and once per probe that applies to it, through the one run service."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.probes.base import ORIGINAL, Probe
from judges.records import ItemRecord
from judges.records.header import RunKind
from judges.runs.items import Item
from judges.runs.tasks import sample_fields
from judges.types import Sample


def probe_item_id(sample_id: str, probe: str) -> str:
    """The id of a sample's perturbed copy: `<sample id>~<probe>`."""
    return f"{sample_id}~{probe}"


@dataclass
class ProbeTask:
    """Every sample judged unchanged (probe "original") and perturbed by each probe that applies; each is one item,
    so the cache, the budget and resuming treat them as any other item. The pairing is done from the records."""

    samples: Sequence[tuple[str, Sample]]
    probes: Sequence[Probe]
    judge: GroundedQAJudge
    kind: RunKind = RunKind.PROBES
    items_per_slot: int = 4
    items: list[Item] = field(init=False)

    def __post_init__(self) -> None:
        items: list[Item] = []
        for sample_id, sample in self.samples:
            items.append(Item(sample_id, len(items), (sample_id, ORIGINAL, sample)))
            for probe in self.probes:
                changed = probe.apply(sample, sample_id)
                if changed is not None:
                    items.append(
                        Item(probe_item_id(sample_id, probe.name), len(items), (sample_id, probe.name, changed))
                    )
        self.items = items

    def check(self) -> None:
        check_renders(self.judge.prompts, (item.payload[2] for item in self.items))

    def provenance(self) -> dict[str, Any]:
        return {"probes": {probe.name: dict(probe.expects) for probe in self.probes}}

    async def run_item(self, item: Item) -> ItemRecord:
        sample_id, probe, sample = item.payload
        records = await self.judge.judge(sample, priority=item.order)
        return ItemRecord(
            item.id, records, item.order, item.draw, sample_fields(sample), sample_id=sample_id, probe=probe
        )
