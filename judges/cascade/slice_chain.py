"""A cascade per slice: each slice calibrated on its own labels at delta / slices (Bonferroni), so the target holds on
every slice at once; applied by each item's slice, an item of a slice never calibrated escalated."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from judges.cascade.applying import Decisions, decide, item_order
from judges.cascade.chain import Calibrated, calibrate_cascade
from judges.cascade.slice_schema import Slices
from judges.cascade.sources import Judge
from judges.cascade.verdicts import VerdictRule
from judges.errors import InputError
from judges.labels.field_paths import get_field
from judges.labels.tables import iter_rows

SPLIT = "Bonferroni: each slice calibrated at delta / (number of slices), so every slice holds its target at once"


def calibrate_by_slice(
    judges: Sequence[Judge],
    labels: Mapping[str, Mapping[str, float]],
    rule: VerdictRule,
    *,
    target: float,
    delta: float,
    min_kept: int,
) -> dict[str, list[Calibrated]]:
    """Each slice's cascade (`labels`: slice -> item id -> label) at delta split evenly over the slices."""
    each = delta / len(labels)
    return {
        name: calibrate_cascade(judges, truth, rule, target=target, delta=each, min_kept=min_kept)
        for name, truth in labels.items()
    }


def decide_by_slice(
    judges: Sequence[Judge],
    thresholds: Mapping[str, Sequence[float | None]],
    slice_of: Mapping[str, str | None],
    rule: VerdictRule,
) -> tuple[Decisions, list[str]]:
    """Every item of the first judge decided by its slice's thresholds (each judge's a column over the items); the
    ids escalated because their slice was never calibrated (or they have none), in order."""
    ids = item_order(judges[0])
    bars = np.full((len(judges), len(ids)), np.nan)  # NaN: the judge keeps nothing of the item's slice
    never: list[str] = []
    for n, item_id in enumerate(ids):
        name = slice_of.get(item_id)
        if name is None or name not in thresholds:
            never.append(item_id)
            continue
        bars[:, n] = [np.nan if t is None else t for t in thresholds[name]]
    return decide(judges, list(bars), rule), never


class SliceBars:
    """Each item's thresholds in a streamed apply, from its slice in the first judge's row (`field`) or, given a
    table, in `slice_of`; `never` counts the items of each slice never calibrated (None: no slice)."""

    def __init__(
        self, field: str, thresholds: Mapping[str, Sequence[float | None]], slice_of: Mapping[str, str | None] | None
    ) -> None:
        self.field, self.thresholds, self.slice_of = field, thresholds, slice_of
        self.none: list[float | None] = [None] * len(next(iter(thresholds.values())))
        self.never: Counter[str | None] = Counter()
        self.found = False  # some item has the field
        self.last: tuple[str, str | None] = ("", None)  # the item last asked for and its slice

    def slice_now(self, item_id: str) -> str | None:
        """The slice of the item whose thresholds were asked for last (a streamed decision is made right after)."""
        return self.last[1] if self.last[0] == item_id else None

    def __call__(self, item_id: str, row: Mapping[str, object]) -> Sequence[float | None]:
        if self.slice_of is None:
            value = get_field(dict(row), self.field, None)
            name = None if value in (None, "") or isinstance(value, (dict, list)) else str(value)
        else:
            name = self.slice_of.get(item_id)
        self.found = self.found or name is not None
        self.last = (item_id, name)
        if name is None or name not in self.thresholds:
            self.never[name] += 1
            return self.none
        return self.thresholds[name]


def read_slices(source: str, field: str, id_field: str = "id") -> dict[str, str | None]:
    """Each item's slice from a table's rows (its `id` and `field` columns); an InputError when no row has the field."""
    out: dict[str, str | None] = {}
    for _, row in iter_rows(source):
        value = get_field(row, field, None)
        out[str(get_field(row, id_field, ""))] = None if value in (None, "") else str(value)
    if not any(value is not None for value in out.values()):
        raise InputError(f"no item has the slice field {field!r} the calibration was made by", path=source, field=field)
    return out


def slice_thresholds(block: Slices) -> dict[str, list[float | None]]:
    """Each slice's thresholds, in the judges' order, of a calibration made with --slice."""
    return {name: [j.threshold for j in part.judges] for name, part in block.by_slice.items()}


def slices_block(
    field: str, steps: Mapping[str, list[Calibrated]], counts: Mapping[str, int], delta: float
) -> dict[str, Any]:
    """calibration.json's `slices` block: the field, the split of delta, and each slice's thresholds and kept items."""
    by_slice = {}
    for name, calibrated in steps.items():
        judges = []
        for step in calibrated:
            chosen = step.choice.chosen
            judges.append(
                {
                    "name": step.judge.name,
                    "threshold": step.choice.threshold,
                    "offered": step.choice.offered,
                    "kept": step.kept,
                    "agreement": None if chosen is None else round(chosen.agreement, 6),
                    "disagreement_upper_bound": None if chosen is None else round(chosen.upper_bound, 6),
                }
            )
        by_slice[name] = {"items": counts[name], "judges": judges}
    return {"field": field, "delta_each": delta / len(steps), "split": SPLIT, "by_slice": by_slice}


def default_slice_source(judges: Sequence[Judge]) -> str:
    """Where the items' slices are read by default: the first judge's predictions file."""
    source = Path(judges[0].source)
    if source.is_dir():
        return str(source / "results.jsonl")
    return str(source)
