"""ProbeTask: each sample judged as it is and once per probe that applies to it, through the one run service; the
probes that skipped a sample are counted per reason."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.probes.base import ORIGINAL, Known, Probe, Skip
from judges.records import ItemRecord
from judges.runs.items import Item
from judges.runs.tasks import sample_fields
from judges.types import Sample


def probe_item_id(sample_id: str, probe: str) -> str:
    """The id of a sample's perturbed copy: `<sample id>~<probe>`."""
    return f"{sample_id}~{probe}"


@dataclass(frozen=True)
class Planned:
    """What the probes made of the samples: per probe, the samples it applied to and the skips by reason."""

    samples: int
    applied: dict[str, int]
    skipped: dict[str, dict[str, int]]

    def to_json(self) -> dict[str, Any]:
        return {"samples": self.samples, "applied": self.applied, "skipped": self.skipped}


def perturb(
    samples: Sequence[tuple[str, Sample]], probes: Sequence[Probe], known: Mapping[str, Known] | None = None
) -> tuple[list[tuple[str, str, Sample]], Planned]:
    """Every (sample id, probe, sample) to judge, each original first and then its perturbed copies, and the plan
    counted. `known` holds each unit test's type and conditions by sample id (none for `--data` samples)."""
    known = known or {}
    out: list[tuple[str, str, Sample]] = []
    applied: Counter[str] = Counter()
    skipped: dict[str, Counter[str]] = {probe.name: Counter() for probe in probes}
    for sample_id, sample in samples:
        out.append((sample_id, ORIGINAL, sample))
        for probe in probes:
            changed = probe.apply(sample, sample_id, known.get(sample_id))
            if isinstance(changed, Skip):
                skipped[probe.name][changed.reason] += 1
            else:
                applied[probe.name] += 1
                out.append((sample_id, probe.name, changed))
    plan = Planned(
        len(samples),
        {probe.name: applied[probe.name] for probe in probes},
        {name: dict(counts.most_common()) for name, counts in skipped.items() if counts},
    )
    return out, plan


@dataclass
class ProbeTask:
    """Every sample judged unchanged (probe "original") and perturbed by each probe that applies; each is one item,
    so the cache, the budget and resuming treat them as any other item. The pairing is done from the records."""

    samples: Sequence[tuple[str, Sample]]
    probes: Sequence[Probe]
    judge: GroundedQAJudge
    known: Mapping[str, Known] = field(default_factory=dict)
    kind: str = "probes"
    items_per_slot: int = 4
    items: list[Item] = field(init=False)
    plan: Planned = field(init=False)

    def __post_init__(self) -> None:
        made, self.plan = perturb(self.samples, self.probes, self.known)
        self.items = [
            Item(sample_id if probe == ORIGINAL else probe_item_id(sample_id, probe), n, (sample_id, probe, sample))
            for n, (sample_id, probe, sample) in enumerate(made)
        ]

    def check(self) -> None:
        check_renders(self.judge.prompts, (item.payload[2] for item in self.items))

    def provenance(self) -> dict[str, Any]:
        return {"probes": {probe.name: dict(probe.expects) for probe in self.probes}, "probe_plan": self.plan.to_json()}

    async def run_item(self, item: Item) -> ItemRecord:
        sample_id, probe, sample = item.payload
        records = await self.judge.judge(sample, priority=item.order)
        return ItemRecord(
            item.id, records, item.order, item.draw, sample_fields(sample), sample_id=sample_id, probe=probe
        )
