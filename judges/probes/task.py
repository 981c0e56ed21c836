"""ProbeTask: each sample judged as it is and once per probe that applies to it, through the one run service; the
probes that skipped a sample are counted per reason."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judges.files.record_file import OnDemand
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import check_renders
from judges.probes.base import ORIGINAL, Known, Probe, Skip
from judges.probes.probe_summary import PROBES
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


def perturbed(
    samples: Iterable[tuple[str, Sample]],
    probes: Sequence[Probe],
    known: Mapping[str, Known] | None = None,
    skipped: dict[str, Counter[str]] | None = None,
) -> Iterator[tuple[str, str, Sample]]:
    """Every (sample id, probe, sample) to judge, made as the samples are read: each original first, then its
    perturbed copies (a probe's change depends on the sample and its id alone, so it is made alike every time);
    a probe's skips are counted in `skipped` (by probe, then reason). `known` holds each unit test's type and
    conditions by sample id (none for `--data` samples)."""
    known = known or {}
    for sample_id, sample in samples:
        yield sample_id, ORIGINAL, sample
        for probe in probes:
            changed = probe.apply(sample, sample_id, known.get(sample_id))
            if isinstance(changed, Skip):
                if skipped is not None:
                    skipped.setdefault(probe.name, Counter())[changed.reason] += 1
            else:
                yield sample_id, probe.name, changed


def planned(
    samples: int, probes: Sequence[Probe], made: Iterable[tuple[str, str, Sample]], skipped: dict[str, Counter[str]]
) -> Planned:
    """The plan of `made` (counted as it is read: consume it before reading `skipped`)."""
    applied = Counter(probe for _, probe, _ in made if probe != ORIGINAL)
    return Planned(
        samples,
        {probe.name: applied[probe.name] for probe in probes},
        {name: dict(counts.most_common()) for name, counts in skipped.items() if counts},
    )


def perturb(
    samples: Sequence[tuple[str, Sample]], probes: Sequence[Probe], known: Mapping[str, Known] | None = None
) -> tuple[list[tuple[str, str, Sample]], Planned]:
    """Every (sample id, probe, sample) to judge, as a list, and the plan counted (a dry run's and an audit's)."""
    skipped: dict[str, Counter[str]] = {probe.name: Counter() for probe in probes}
    made = list(perturbed(samples, probes, known, skipped))
    return made, planned(len(samples), probes, made, skipped)


class ProbeItems(OnDemand[Item]):
    """A probe run's items, made as the run reaches them (its samples read from their file again and perturbed
    anew), so a run holds only those in flight: one pass first counts them and makes the plan."""

    def __init__(self, samples: Sequence[tuple[str, Sample]], probes: Sequence[Probe], known: Mapping[str, Known]):
        self.samples, self.probes, self.known = samples, probes, known
        skipped: dict[str, Counter[str]] = {probe.name: Counter() for probe in probes}
        self.plan = planned(len(samples), probes, perturbed(samples, probes, known, skipped), skipped)
        self.made = len(samples) + sum(self.plan.applied.values())  # the originals and their perturbed copies

    def __len__(self) -> int:
        return self.made

    def __iter__(self) -> Iterator[Item]:
        for order, (sample_id, probe, sample) in enumerate(perturbed(self.samples, self.probes, self.known)):
            item_id = sample_id if probe == ORIGINAL else probe_item_id(sample_id, probe)
            yield Item(item_id, order, (sample_id, probe, sample))

    def at(self, index: int) -> Item:
        """Item `index`, made by reading the items up to it."""
        return next(itertools.islice(iter(self), index, None))


@dataclass
class ProbeTask:
    """Every sample judged unchanged (probe "original") and perturbed by each probe that applies; each is one item,
    so the cache, the budget and resuming treat them as any other item. The pairing is done from the records."""

    samples: Sequence[tuple[str, Sample]]
    probes: Sequence[Probe]
    judge: GroundedQAJudge
    known: Mapping[str, Known] = field(default_factory=dict)
    kind: str = PROBES
    items_per_slot: int = 4
    items: ProbeItems = field(init=False)
    plan: Planned = field(init=False)

    def __post_init__(self) -> None:
        self.items = ProbeItems(self.samples, self.probes, self.known)
        self.plan = self.items.plan

    def check(self) -> None:
        check_renders(self.judge.prompts, (item.payload[2] for item in self.items))

    def provenance(self) -> dict[str, Any]:
        return {"probes": {probe.name: dict(probe.expects) for probe in self.probes}, "probe_plan": self.plan.to_json()}

    async def run_item(self, item: Item) -> ItemRecord:
        sample_id, probe, sample = item.payload
        records = await self.judge.judge(sample, priority=item.order)
        return ItemRecord(
            item.id,
            records,
            item.order,
            item.draw,
            sample_fields(sample),
            part={"sample_id": sample_id, "probe": probe},
        )
