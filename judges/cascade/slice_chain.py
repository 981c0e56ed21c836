"""A cascade per slice: each slice calibrated on its own labels at delta / slices (Bonferroni), so the target holds on
every slice at once; applied by each item's slice, an item of a slice never calibrated escalated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.cascade.applying import Decision, decide, item_order
from judges.cascade.chain import Calibrated, calibrate_cascade
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
) -> tuple[list[Decision], list[str]]:
    """Every item of the first judge decided by its slice's thresholds; the ids escalated because their slice was
    never calibrated (or they have none), in order."""
    ids = item_order(judges[0])
    groups: dict[str | None, list[str]] = {}
    for item_id in ids:
        groups.setdefault(slice_of.get(item_id), []).append(item_id)
    decided: dict[str, Decision] = {}
    never: list[str] = []
    for name, members in groups.items():
        if name is None or name not in thresholds:
            never += members
            continue
        decided |= {d.id: d for d in decide(judges, thresholds[name], rule, ids=members)}
    escalated = set(never)
    return [decided.get(i) or Decision(i) for i in ids], [i for i in ids if i in escalated]


def read_slices(source: str, field: str, id_field: str = "id") -> dict[str, str | None]:
    """Each item's slice from a table's rows (its `id` and `field` columns); an InputError when no row has the field."""
    out: dict[str, str | None] = {}
    for _, row in iter_rows(source):
        value = get_field(row, field, None)
        out[str(get_field(row, id_field, ""))] = None if value in (None, "") else str(value)
    if not any(value is not None for value in out.values()):
        raise InputError(f"no item has the slice field {field!r} the calibration was made by", path=source, field=field)
    return out


def slice_thresholds(calibration: Mapping[str, Any], path: str) -> tuple[str, dict[str, list[float | None]]]:
    """The slice field and each slice's thresholds (in the judges' order) of a calibration made with --slice."""
    block = calibration.get("slices")
    if not isinstance(block, dict) or not isinstance(block.get("by_slice"), dict):
        raise InputError("a calibration by slice needs its slices block", path=path, field="slices")
    thresholds = {
        str(name): [None if j.get("threshold") is None else float(j["threshold"]) for j in entry["judges"]]
        for name, entry in block["by_slice"].items()
    }
    return str(block["field"]), thresholds


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
