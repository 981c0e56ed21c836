"""The labels an aligned judge is tuned to: a labelled set or a teacher judge's run, a seeded subset, and the
seeded split into a search part and a held-out part (by system when the items name one)."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, InputError
from judges.judging.replies import GRADE_SPECS
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.runs.run_writer import FolderRecorder
from judges.types import GROUSE_METRICS, Sample, VerdictState


def template_for(metric: str) -> str:
    """The GroUSE template that grades a labelled metric (ALCE's utility, `usefulness`, is graded 1-5 by the
    relevancy template, as on the leaderboard; a GroUSE metric by its own)."""
    from judges.leaderboard.label_entries import TEMPLATE_FOR  # defers numpy

    if metric in TEMPLATE_FOR:
        return TEMPLATE_FOR[metric]
    if metric in GROUSE_METRICS:
        return metric
    known = sorted({*TEMPLATE_FOR, *GROUSE_METRICS})
    raise ConfigError(f"no judge prompt grades the labelled metric {metric!r} (known: {', '.join(known)})")


def is_run_folder(spec: str) -> bool:
    return Path(spec).is_dir() and (Path(spec) / "run.json").is_file()


def teacher_labels(folder: str | Path) -> LabelledSet:
    """A judge's run folder as labels: each graded verdict (first draw) of each metric is one label from the teacher;
    a null or a failed verdict gives no label. Binary for 0/1 metrics, ordinal 1-5 otherwise."""

    run = FolderRecorder(folder).load()
    teacher = f"teacher:{run.config.judge or Path(folder).name}"
    items: list[LabelledItem] = []
    for record in run.iter_records():
        if record.draw != 0 or record.sample is None:
            continue
        fields = {k: v for k, v in record.sample.items() if k in ("input", "expected_output", "actual_output")}
        sample = Sample(**fields, references=tuple(record.sample.get("references") or ()))
        for metric, entry in record.metrics.items():
            grades = GRADE_SPECS[metric][1] if metric in GRADE_SPECS else None
            if entry.verdict.state is not VerdictState.GRADE or entry.value is None or grades is None:
                continue
            binary = grades == (0, 1)
            items.append(
                LabelledItem(
                    id=record.id,
                    metric=metric,
                    label=float(entry.value),
                    label_type=LabelType.BINARY if binary else LabelType.ORDINAL,
                    scale=(float(grades[0]), float(grades[-1])),
                    annotator=teacher,
                    sample=sample,
                    extra={"system": record.sample["system"]} if "system" in record.sample else {},
                )
            )
    if not items:
        raise InputError("the run folder holds no graded verdict to learn from", path=str(folder))
    return LabelledSet(f"teacher-{Path(folder).name}", tuple(items), source=str(folder))


def system_of(item: LabelledItem) -> str | None:
    """The system that wrote the answer, when the item names one (a `system` field, or `extra.system`)."""
    named = getattr(item, "system", None) or item.extra.get("system")
    return None if named is None else str(named)


def limited(labels: LabelledSet, limit: int | None, seed: int) -> LabelledSet:
    """`limit` items drawn with the seed (all their annotators kept); every item when no limit."""
    ids = sorted({item.id for item in labels.items})
    if limit is None or limit >= len(ids):
        return labels
    keep = set(random.Random(seed).sample(ids, limit))
    return subset(labels, keep)


def subset(labels: LabelledSet, ids: Iterable[str]) -> LabelledSet:
    keep = set(ids)
    return LabelledSet(labels.name, tuple(i for i in labels.items if i.id in keep), labels.source)


@dataclass(frozen=True)
class Split:
    """The search part and the held-out part (item ids, seeded order), and the systems on each side (empty when the
    items name none)."""

    search: list[str]
    held_out: list[str]
    search_systems: list[str]
    held_out_systems: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "search_items": len(self.search),
            "held_out_items": len(self.held_out),
            "by_system": bool(self.held_out_systems),
            "search_systems": self.search_systems,
            "held_out_systems": self.held_out_systems,
        }


def split_items(labels: LabelledSet, held_out: float, seed: int) -> Split:
    """Items (or, when every item names its system, whole systems) shuffled with the seed; the held-out part takes
    them until it holds `held_out` of the items, so no item, and no system, is on both sides."""
    if not 0 < held_out < 1:
        raise ConfigError("--held-out: a share strictly between 0 and 1, e.g. 0.5")
    ids = sorted({item.id for item in labels.items})
    system = {item.id: system_of(item) for item in labels.items}
    rng = random.Random(seed)
    named = {s for s in system.values() if s is not None}
    by_system = len(named) >= 2 and all(system[i] is not None for i in ids)
    groups: dict[str, list[str]] = {}
    for item_id in ids:
        groups.setdefault(str(system[item_id]) if by_system else item_id, []).append(item_id)
    order = sorted(groups)
    rng.shuffle(order)
    target = held_out * len(ids)
    held: list[str] = []
    held_groups: list[str] = []
    for group in order:
        if len(held) >= target or len(held_groups) == len(order) - 1:
            break
        held += groups[group]
        held_groups.append(group)
    search = [i for g in order if g not in held_groups for i in groups[g]]
    if len(search) < 4 or len(held) < 4:
        raise ConfigError(
            f"{labels.name}: {len(ids)} labelled items split into {len(search)} to search and {len(held)} held out; "
            "each part needs at least 4 (label more items, or change --held-out)"
        )
    rng.shuffle(search)
    rest = [g for g in order if g not in held_groups]
    return Split(search, held, sorted(rest) if by_system else [], sorted(held_groups) if by_system else [])


def data_sha256(labels: LabelledSet, ids: Sequence[str]) -> str:
    """SHA-256 of the labelled records of these items (sorted), the search data's fingerprint in the manifest."""
    keep = set(ids)
    rows = sorted(json.dumps(i.to_record(), sort_keys=True) for i in labels.items if i.id in keep)
    return hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()
