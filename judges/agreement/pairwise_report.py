"""A judge's `pairwise` block on a judge benchmark (overall and per category), the references beside it, the page."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from judges.agreement.best_of_n import best_of_n_stats
from judges.agreement.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Figure, ItemRows
from judges.agreement.pairwise_formats import PairLabels, PairVerdicts
from judges.agreement.pairwise_protocols import (
    CODES,
    NONE,
    PairRows,
    bootstrap_figures,
    pairwise_stats,
)
from judges.errors import InputError

PER_ORDER = {"accuracy_per_order": "accuracy", "kappa_per_order": "kappa"}
FLAT = (
    "accuracy_mean",
    "both_correct",
    "position_consistency",
    "kappa_between_orders",
    "vote_accuracy",
    "accuracy_with_ties",
    "accuracy_without_ties",
)


def _code(verdict: str | None) -> int:
    return CODES.get(verdict, NONE) if verdict is not None else NONE


def judged_only(labels: PairLabels, verdicts: PairVerdicts) -> tuple[PairLabels, int]:
    """MT-Bench's labels on the items the judge voted on, and how many votes were left out: FastChat's
    `compute_agreement.py` counts a human vote only where the judge voted on its item (a vote it could not parse
    still counts against it)."""
    if labels.format != "mtbench":
        return labels, 0
    keep = [number for number, item in enumerate(labels.ids) if item in verdicts.verdicts]
    if not keep or len(keep) == len(labels.ids):
        return labels, 0  # none kept: pair_rows says the ids differ
    kept = replace(
        labels,
        ids=tuple(labels.ids[n] for n in keep),
        labels=tuple(labels.labels[n] for n in keep),
        categories=tuple(labels.categories[n] for n in keep),
        systems=tuple(labels.systems[n] for n in keep) if labels.systems else (),
    )
    return kept, len(labels.ids) - len(keep)


def pair_rows(labels: PairLabels, verdicts: PairVerdicts) -> PairRows:
    """The label rows beside the judge's verdicts; an item the judge left out has no verdict (counted wrong)."""
    judged = verdicts.verdicts or verdicts.scores
    if labels.ids and not any(item in judged for item in labels.ids):
        raise InputError("no item of the labels has a verdict here (ids differ?)", path=verdicts.source)
    if labels.format == "llmbar" and len(judged) != len(set(labels.ids)):
        raise InputError(
            f"{len(judged)} rows, the labels {len(labels.ids)}: LLMBar matches by position", path=verdicts.source
        )
    orders = {len(v) for v in verdicts.verdicts.values()} or {2}
    two = orders == {2}
    original, swapped = [], []
    for item in labels.ids:
        given = verdicts.verdicts.get(item, (None, None) if two else (None,))
        original.append(_code(given[0]))
        swapped.append(_code(given[-1]))
    _, row_item = np.unique(np.array(labels.ids), return_inverse=True)
    items = ItemRows(row_item.astype(np.int64), int(row_item.max()) + 1 if row_item.size else 0)
    label = np.array([CODES[x] for x in labels.labels], dtype=np.int64)
    return PairRows(label, np.array(original), np.array(swapped) if two else None, items)


def _shaped(figures: dict[str, Figure]) -> dict[str, Any]:
    """The figures in the block's shape: per-order pairs under one key, the rest flat."""
    out: dict[str, Any] = {}
    for key, prefix in PER_ORDER.items():
        if f"{prefix}_original" in figures:
            out[key] = {o: figures[f"{prefix}_{o}"].to_dict() for o in ("original", "swapped")}
    out.update({name: figures[name].to_dict() for name in FLAT if name in figures})
    return out


def best_of_n_inputs(
    labels: PairLabels, verdicts: PairVerdicts
) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
    """Each prompt's chosen and rejected answers' scores (none where the model left it out: no credit)."""
    if not any(item in verdicts.scores for item in labels.ids):
        raise InputError("no prompt of the labels has scores here (ids differ?)", path=verdicts.source)
    chosen, rejected = [], []
    for item in labels.ids:
        scores = verdicts.scores.get(item, ())
        k = labels.chosen[item]
        chosen.append(scores[:k])
        rejected.append(scores[k:])
    return chosen, rejected


def best_of_n_block(labels: PairLabels, verdicts: PairVerdicts, **boot: Any) -> dict[str, Any]:
    """RewardBench 2's score per subset (Ties by its own rule) and their mean; a prompt without scores counts 0."""
    chosen, rejected = best_of_n_inputs(labels, verdicts)
    subsets = [c or "all" for c in labels.categories]
    stats, notes = best_of_n_stats(labels.ids, chosen, rejected, subsets)
    items = ItemRows(np.arange(len(labels.ids), dtype=np.int64), len(labels.ids))
    figures = bootstrap_figures(stats, items, **boot)
    block: dict[str, Any] = {
        "subsets": {n.removeprefix("subset:"): f.to_dict() for n, f in figures.items() if n != "mean"},
        "mean": figures["mean"].to_dict(),
        "scored": sum(1 for item in labels.ids if item in verdicts.scores),
        "n": len(labels.ids),
    }
    if notes:
        block["notes"] = notes
    return block


def pairwise_block(
    labels: PairLabels,
    verdicts: PairVerdicts,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """The judge's pairwise statistics on the benchmark with their intervals, and per category when it has them."""
    boot: dict[str, Any] = {"resamples": resamples, "seed": seed, "confidence": confidence}
    if labels.format == "rewardbench":
        return {"best_of_n": best_of_n_block(labels, verdicts, **boot)}
    labels, not_judged = judged_only(labels, verdicts)
    rows = pair_rows(labels, verdicts)
    block: dict[str, Any] = {
        "n_rows": int(rows.label.size),
        "votes_on_items_not_judged": not_judged,
        "n_items": rows.items.n_items,
        "orders": 1 if rows.swapped is None else 2,
        "no_verdict": int(
            np.sum(rows.original == NONE) + (0 if rows.swapped is None else np.sum(rows.swapped == NONE))
        ),
        **_shaped(bootstrap_figures(pairwise_stats(rows), rows.items, **boot)),
    }
    names = sorted({c for c in labels.categories if c is not None})
    if len(names) > 1:
        where = np.array([c or "" for c in labels.categories])
        block["per_category"] = {}
        for name in names:
            part = rows.subset(where == name)
            block["per_category"][name] = _shaped(bootstrap_figures(pairwise_stats(part), part.items, **boot))
    return block


def references(labels: PairLabels, **boot: Any) -> dict[str, dict[str, Any]]:
    """The same statistics for judges that know nothing: always the first answer shown (A as given, B swapped),
    always a tie; and chance (a fair coin per order), in expectation."""
    if labels.format == "rewardbench":
        counts = [labels.chosen[i] for i in labels.ids]
        return {"chance": {"best_of_n": {"mean": {"value": None, "note": f"1/n per prompt ({min(counts)}+ chosen)"}}}}
    ids = list(dict.fromkeys(labels.ids))
    first = PairVerdicts(labels.format, "always first", {i: ("A", "B") for i in ids})
    tie = PairVerdicts(labels.format, "always tie", {i: ("tie", "tie") for i in ids})
    label = np.array([CODES[x] for x in labels.labels])
    decided = float(np.mean(label != CODES["tie"])) if label.size else float("nan")
    chance = {
        "accuracy_mean": decided / 2,
        "both_correct": decided / 4,
        "position_consistency": 0.5,
        "kappa_between_orders": 0.0,
        "vote_accuracy": decided / 4,
        "accuracy_with_ties": decided / 4,
        "accuracy_without_ties": 0.5,
    }
    coin: dict[str, Any] = {name: {"value": value, "ci": None} for name, value in chance.items()}
    coin["accuracy_per_order"] = {o: {"value": decided / 2, "ci": None} for o in ("original", "swapped")}
    coin["kappa_per_order"] = {o: {"value": 0.0, "ci": None} for o in ("original", "swapped")}
    return {
        "always first shown": pairwise_block(labels, first, **boot),
        "always tie": pairwise_block(labels, tie, **boot),
        "chance": coin,
    }
