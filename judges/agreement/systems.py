"""System-aware agreement: partial correlations controlling for the system, system-level correlations and pairwise
accuracy, and a per-system table; intervals from resampling items within each system.

The partial correlations follow FRANK (Pagnoni et al., NAACL 2021): regress the judge's score and the human label on
the one-hot system (OLS with an intercept, which is subtracting each system's mean), then Pearson and Spearman of
the residuals. System-level correlations follow SummEval (Fabbri et al., TACL 2021) and the WMT metrics tasks
(Pearson, Spearman, Kendall of the per-system means); pairwise accuracy follows Kocmi et al. (WMT 2021): the share
of system pairs the judge orders as the humans do. Each item stands for one value: the mean of its annotators'
labels. A resample is a vector of counts (how often each item is drawn, items drawn within their own system), so
memory stays O(items) and no statistic builds an items x items structure (nor a systems x systems one:
system_statistics.kendall_rows counts the system pairs in O(S log S)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judges.agreement import system_large
from judges.agreement.bootstrap import Figure, percentile_interval
from judges.agreement.statistics import BOOTSTRAP_ITEMS
from judges.agreement.system_codes import SystemItems, system_codes
from judges.agreement.system_statistics import LEVEL_BLOCK_VALUES, system_level, weighted_correlation, weighted_ranks
from judges.labels.schema import LabelledSet, LabelType

PARTIAL = ("partial_pearson", "partial_spearman")
MACRO_BALANCED_ACCURACY = "balanced_accuracy_system_macro"
READING = (
    "plain figures for how well the judge grades items overall, partial ones for whether it tells good from bad "
    "answers of the same system (a judge that only recognises the stronger systems scores high plainly and near 0 "
    "here), system-level ones for whether it ranks the systems as the humans do"
)


@dataclass(frozen=True)
class SystemRow:
    """One system: its items, the human and judge means, and the item-level statistic within it."""

    system: str
    n_items: int
    human_mean: float
    judge_mean: float
    statistic: str
    value: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "n_items": self.n_items,
            "human_mean": self.human_mean,
            "judge_mean": self.judge_mean,
            "statistic": self.statistic,
            "value": self.value,
        }


@dataclass(frozen=True)
class SystemAgreement:
    """The system-aware figures of one metric (named as in PARTIAL, system_statistics.SYSTEM_LEVEL) and the per-system table."""

    figures: list[Figure]
    rows: list[SystemRow]
    items: SystemItems | None = field(default=None, compare=False, repr=False)  # for ranking judges (not saved)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_systems": len(self.rows),
            "per_system": [row.to_dict() for row in self.rows],
            **{fig.statistic: fig.to_dict() for fig in self.figures},
        }


def _defined(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


class Blocks:
    """Items sorted by system, then by the first array (the human value): block starts and sizes, and per-item
    values in that order (so the human residuals of a resample already form one ascending run per system)."""

    def __init__(self, names: list[str], codes: np.ndarray, *arrays: np.ndarray) -> None:
        order = np.lexsort((arrays[0], codes))
        self.names = names
        self.codes = codes[order]
        self.sizes = np.bincount(self.codes, minlength=len(names))
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        self.arrays = [a[order] for a in arrays]

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Per-system sums of an item-order vector."""
        return np.add.reduceat(values, self.starts)

    def within(self, values: np.ndarray) -> np.ndarray:
        """An order of the items that sorts `values` within each system (the blocks stay in place)."""
        return np.lexsort((values, self.codes))

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """Counts of one resample: each system's items drawn with replacement, as many as it holds."""
        n = self.codes.size
        size, start = self.sizes[self.codes], self.starts[self.codes]
        picks = (rng.random(n) * size).astype(np.int64) + start
        return np.bincount(picks, minlength=n).astype(float)


class ItemMeasure:
    """The item-level system-aware statistics of one weighting of the items (all ones, or a resample's counts)."""

    def __init__(self, blocks: Blocks, correlations: bool, binary: bool) -> None:
        self.blocks, self.correlations, self.binary = blocks, correlations, binary
        judge = blocks.arrays[1]
        self.order_j = blocks.within(judge)  # the human values are in order within each system already
        self.scales = (float(np.abs(blocks.arrays[0]).max()), float(np.abs(judge).max()))

    def means(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        human, judge = self.blocks.arrays[0], self.blocks.arrays[1]
        weight = self.blocks.sums(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.blocks.sums(w * human) / weight, self.blocks.sums(w * judge) / weight

    def item_level(self, w: np.ndarray, human_means: np.ndarray, judge_means: np.ndarray) -> dict[str, float]:
        human, judge = self.blocks.arrays[0], self.blocks.arrays[1]
        out: dict[str, float] = {}
        if self.correlations:
            sizes = self.blocks.sizes
            rh, rj = human - np.repeat(human_means, sizes), judge - np.repeat(judge_means, sizes)
            out["partial_pearson"] = weighted_correlation(rh, rj, w, self.scales)
            if np.isnan(out["partial_pearson"]):  # a constant residual: its ranks would only order rounding noise
                out["partial_spearman"] = float("nan")
            else:
                out["partial_spearman"] = weighted_correlation(
                    weighted_ranks(rh, w, None), weighted_ranks(rj, w, self.order_j), w
                )
        if self.binary:
            per_system = self.balanced(w)
            defined = per_system[np.isfinite(per_system)]
            out[MACRO_BALANCED_ACCURACY] = float(defined.mean()) if defined.size else float("nan")
        return out

    def balanced(self, w: np.ndarray) -> np.ndarray:
        """Balanced accuracy within each system (NaN for a system whose items hold one class only)."""
        _, _, said, truth = self.blocks.arrays
        sums = self.blocks.sums
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = sums(w * truth * said) / sums(w * truth)
            specificity = sums(w * (1 - truth) * (1 - said)) / sums(w * (1 - truth))
        return np.asarray((recall + specificity) / 2, dtype=float)


def system_agreement(
    label_type: LabelType,
    systems: Sequence[str],
    human: np.ndarray,
    judge: np.ndarray,
    *,
    said: np.ndarray | None = None,
    resamples: int,
    seed: int,
    confidence: float,
    bootstrap_items: int = BOOTSTRAP_ITEMS,
    coded: tuple[list[str], np.ndarray] | None = None,
) -> SystemAgreement | None:
    """The system-aware figures of items from two or more systems (None with fewer, or for preference labels).

    `human` is each item's mean label, `judge` its judge value; for binary labels `said` is the judge's 0/1 call
    (None when the judge's score has no cut), from which balanced accuracy per system and its macro average come.
    Above `bootstrap_items` items the intervals come from `system_large` instead of resampling items. `coded`: the
    system names and each item's index into them, given instead of `systems`.
    """
    names, codes = coded if coded is not None else system_codes(systems)
    if label_type is LabelType.PREFERENCE or len(names) < 2:
        return None
    binary = label_type is LabelType.BINARY and said is not None
    truth = (human >= 0.5).astype(float) if label_type is LabelType.BINARY else human
    blocks = Blocks(names, codes, human, judge, said if said is not None else np.zeros_like(human), truth)
    measure = ItemMeasure(blocks, correlations=label_type is not LabelType.BINARY, binary=binary)
    ones = np.ones(blocks.codes.size)
    human_means, judge_means = measure.means(ones)
    values = measure.item_level(ones, human_means, judge_means)
    values.update({k: float(v[0]) for k, v in system_level(human_means[None], judge_means[None]).items()})
    n, n_systems = int(blocks.codes.size), len(blocks.names)
    large = n > bootstrap_items
    if large:
        drawn = system_large.large_draws(blocks.codes, blocks.arrays, binary, resamples, seed)
        drawn = {MACRO_BALANCED_ACCURACY if name == "macro" else name: v for name, v in drawn.items()}
    else:
        drawn = bootstrap_draws([measure], resamples, seed)[0]
    single = int((blocks.sizes == 1).sum())
    across = f"across {n_systems} systems" + (
        f", {single} of them with one item (its mean the same in every resample)" if single else ""
    )
    figures = []
    for name, value in values.items():
        notes = [across if name.startswith("system_level") else None]
        if not np.isfinite(value):
            figures.append(Figure(name, None, None, n, n, note="undefined on these data (constant values)"))
            continue
        if name in PARTIAL and large:
            fisher, note = system_large.partial_interval(name, value, n, n_systems, confidence)
            figures.append(Figure(name, value, fisher, n, n, note=note))
            continue
        ci, undefined = percentile_interval(drawn[name], confidence)
        if large:
            notes.append(system_large.COUNTS_NOTE if name == MACRO_BALANCED_ACCURACY else system_large.MEANS_NOTE)
        notes.append(f"{undefined} of {resamples} resamples undefined" if undefined else None)
        figures.append(Figure(name, value, ci, n, n, note=", ".join(filter(None, notes)) or None))
    items = SystemItems(tuple(names), codes.astype(np.int32), said is not None)
    return SystemAgreement(figures, _rows(blocks, measure, binary), items)


def bootstrap_draws(measures: Sequence[ItemMeasure], resamples: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Every figure of each measure (judges on the same items, in the same order) on each resample of the items
    drawn within their systems, the same resamples for all; the system means of a block of resamples
    (LEVEL_BLOCK_VALUES means) are turned into the system-level figures before the next block is drawn."""
    rng = np.random.default_rng(seed)
    blocks = measures[0].blocks
    drawn: list[dict[str, list[float]]] = [{} for _ in measures]
    level: list[dict[str, list[np.ndarray]]] = [{} for _ in measures]
    n_systems = len(blocks.names)
    block = max(1, LEVEL_BLOCK_VALUES // (n_systems * len(measures)))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        level_h = np.empty((len(measures), size, n_systems))
        level_j = np.empty_like(level_h)
        for b in range(size):
            w = blocks.draw(rng)
            for m, measure in enumerate(measures):
                level_h[m, b], level_j[m, b] = measure.means(w)
                for name, value in measure.item_level(w, level_h[m, b], level_j[m, b]).items():
                    drawn[m].setdefault(name, []).append(value)
        for m in range(len(measures)):
            for name, values in system_level(level_h[m], level_j[m]).items():
                level[m].setdefault(name, []).append(values)
    return [
        {
            **{name: np.asarray(values, dtype=float) for name, values in drawn[m].items()},
            **{name: np.concatenate(parts) for name, parts in level[m].items()},
        }
        for m in range(len(measures))
    ]


def _rows(blocks: Blocks, measure: ItemMeasure, binary: bool) -> list[SystemRow]:
    """The per-system table: n, means, and Pearson within the system (balanced accuracy for binary labels)."""
    human, judge = blocks.arrays[0], blocks.arrays[1]
    human_means, judge_means = measure.means(np.ones(human.size))
    within = measure.balanced(np.ones(human.size)) if binary else None
    rows = []
    for k, name in enumerate(blocks.names):
        part = slice(int(blocks.starts[k]), int(blocks.starts[k] + blocks.sizes[k]))
        if within is not None:
            statistic, value = "balanced_accuracy", _defined(within[k])
        else:
            ones = np.ones(int(blocks.sizes[k]))
            statistic, value = "pearson", _defined(weighted_correlation(human[part], judge[part], ones))
        rows.append(
            SystemRow(name, int(blocks.sizes[k]), float(human_means[k]), float(judge_means[k]), statistic, value)
        )
    return rows


def measure_systems(
    labels: LabelledSet,
    item_ids: Sequence[str],
    human_rows: np.ndarray,
    views: Mapping[str, np.ndarray],
    row_item: np.ndarray,
    label_type: LabelType,
    has_cut: bool,
    notes: list[str],
    **bootstrap: Any,
) -> SystemAgreement | None:
    """The system-aware figures from measure's label rows (`row_item`: the item index of each row, `item_ids`
    each item's id): one value per item, its annotators' mean label and its judge value.

    When some items name a system and others do not, there are none, and `notes` says why.
    """
    if len(labels.items) == len(item_ids) and item_ids == labels.by_item[0]:  # one label per item, all kept
        systems = [item.system for item in labels.items]
    else:
        named = {item.id: item.system for item in labels.items}
        systems = [named.get(i) for i in item_ids]
        del named  # a million entries: gone before the figures' arrays are made
    if not systems or len(set(systems) - {None}) < 2:
        return None
    unnamed = systems.count(None)
    if unnamed:
        notes.append(f"{unnamed} items name no system: no partial or system-level figures")
        return None
    coded = system_codes(systems)  # type: ignore[arg-type]  # no None left
    del systems
    n_items = len(item_ids)
    human = np.bincount(row_item, weights=human_rows, minlength=n_items) / np.bincount(row_item, minlength=n_items)
    judge, said = np.empty(n_items), np.empty(n_items) if has_cut else None
    judge[row_item] = views["value"]  # every row of an item holds its value
    if said is not None:
        said[row_item] = views["binary"]
    return system_agreement(label_type, [], human, judge, said=said, coded=coded, **bootstrap)
