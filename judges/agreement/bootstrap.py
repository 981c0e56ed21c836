"""The bootstrap over items in bounded memory: seeded blocks of resamples, each resample the weight (draw count)
of every label row, never a (resamples x items) matrix nor an expanded resample; percentile intervals."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from judges.agreement.block_pool import in_order, threads
from judges.agreement.statistics import Statistic
from judges.stats.resampling import RESAMPLES, SEED

DEFAULT_RESAMPLES, DEFAULT_SEED = RESAMPLES, SEED
MIN_DEFINED_SHARE = 0.5  # fewer defined resamples than this and no interval is given
BLOCK_VALUES = 1_000_000  # item draws per block of resamples (8 MB of indices; a few row-length arrays per block)


@dataclass(frozen=True)
class Figure:
    """One statistic: its value, the bootstrap interval, and the n it rests on (label rows and items)."""

    statistic: str
    value: float | None
    ci: tuple[float, float] | None
    n: int
    n_items: int
    note: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "statistic": self.statistic,
            "value": self.value,
            "ci": None if self.ci is None else list(self.ci),
            "n": self.n,
            "n_items": self.n_items,
            "note": self.note,
        }


@dataclass(frozen=True)
class ItemRows:
    """Which item each label row belongs to: the bootstrap resamples items, and an item brings all its rows."""

    row_item: np.ndarray  # (rows,) the item index of each row
    n_items: int

    def __len__(self) -> int:
        return self.n_items

    @classmethod
    def of(cls, groups: Sequence[np.ndarray] | ItemRows) -> ItemRows:
        """From each item's row indices (the older form) or as given."""
        if isinstance(groups, ItemRows):
            return groups
        sizes = np.array([len(g) for g in groups], dtype=np.int64)
        row_item = np.empty(int(sizes.sum()), dtype=np.int64)
        if len(groups):
            row_item[np.concatenate(groups).astype(np.int64)] = np.repeat(np.arange(len(groups)), sizes)
        return cls(row_item, len(groups))

    @classmethod
    def repeated(cls, sizes: np.ndarray) -> ItemRows:
        """Rows laid out item by item, `sizes[i]` rows for item i."""
        return cls(np.repeat(np.arange(sizes.size, dtype=np.int64), sizes), int(sizes.size))

    def weights(self, index: np.ndarray) -> np.ndarray:
        """(k, rows): how many times each resample of the block drew each row's item."""
        counts = np.empty(index.shape, dtype=float)
        for k, drawn in enumerate(index):
            counts[k] = np.bincount(drawn, minlength=self.n_items)
        return counts if self.one_row_each else counts[:, self.row_item]

    @cached_property
    def one_row_each(self) -> bool:
        """Whether row i is item i (no gather needed)."""
        return self.row_item.size == self.n_items and bool(np.all(self.row_item == np.arange(self.n_items)))

    def members(self) -> np.ndarray | None:
        """(items, rows per item) row indices when every item has the same number of rows, else None."""
        sizes = np.bincount(self.row_item, minlength=self.n_items)
        if self.n_items == 0 or sizes.min() != sizes.max():
            return None
        return np.argsort(self.row_item, kind="stable").reshape(self.n_items, int(sizes[0]))


def resample_blocks(n_items: int, resamples: int, seed: int, block_values: int = BLOCK_VALUES) -> Iterator[np.ndarray]:
    """(k, n_items) blocks of drawn item indices; together they are the seeded (resamples, n_items) matrix that
    one draw would give (numpy's generator draws the same stream in blocks), never held whole."""
    rng = np.random.default_rng(seed)
    block = max(1, block_values // max(n_items, 1))
    for start in range(0, resamples, block):
        yield rng.integers(0, n_items, size=(min(block, resamples - start), n_items))


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[tuple[float, float] | None, int]:
    """The percentile interval of the defined resample values, and how many resamples were undefined."""
    defined = values[np.isfinite(values)]
    undefined = int(values.size - defined.size)
    if defined.size < MIN_DEFINED_SHARE * values.size or defined.size == 0:
        return None, undefined
    tail = round((1 - confidence) * 50, 10)  # 2.5 for 95%, without the float residue
    low, high = np.percentile(defined, [tail, 100 - tail])
    return (float(low), float(high)), undefined


Resampler = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (index block, row weights) -> values


def resampler(stat: Statistic, human: np.ndarray, judge: np.ndarray, rows: ItemRows) -> Resampler:
    """The statistic on a block of resamples: its weighted form, its batched form on equal-sized items, else one
    call per resample on the expanded rows."""
    if stat.weighted is not None:
        prepared = stat.weighted(human, judge)
        return lambda index, weights: prepared(weights)
    members = rows.members() if stat.batch is not None else None
    if stat.batch is not None and members is not None:
        batch = stat.batch

        def batched(index: np.ndarray, weights: np.ndarray) -> np.ndarray:
            picked = members[index].reshape(index.shape[0], -1)
            return np.asarray(batch(human[picked], judge[picked]), dtype=float)

        return batched
    return lambda index, weights: np.array(
        [stat(np.repeat(human, times), np.repeat(judge, times)) for times in weights.astype(np.int64)], dtype=float
    )


def paired_differences(
    pairs: Mapping[str, tuple[Resampler, Resampler]], rows: ItemRows, resamples: int, seed: int
) -> dict[str, np.ndarray]:
    """Each pair's A - B on every resample, the same seeded resamples of the items for both judges and every pair (a
    paired bootstrap: Koehn, EMNLP 2004); resamples where a statistic is undefined give nan."""
    drawn: dict[str, list[np.ndarray]] = {name: [] for name in pairs}

    def block(index: np.ndarray) -> list[np.ndarray]:
        weights = rows.weights(index)
        return [on_a(index, weights) - on_b(index, weights) for on_a, on_b in pairs.values()]

    for values in _blocks(block, rows, resamples, seed):
        for name, value in zip(drawn, values, strict=True):
            drawn[name].append(value)
    return {name: np.concatenate(values) if values else np.empty(0) for name, values in drawn.items()}


def _blocks(
    block: Callable[[np.ndarray], list[np.ndarray]], rows: ItemRows, resamples: int, seed: int
) -> Iterator[list[np.ndarray]]:
    """`block` of each block of resamples, in order, on two threads where the rows are many (`block_pool`); numpy's
    warnings on undefined resamples silenced (the filter is the process's, so the threads' too)."""
    rows.one_row_each  # noqa: B018  (settled before the threads share it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drawn = resample_blocks(rows.n_items, resamples, seed, BLOCK_VALUES)
        yield from in_order(block, drawn, threads(rows.row_item.size))


def figures(
    stats: Sequence[Statistic],
    human: np.ndarray,
    views: Mapping[str, np.ndarray],
    groups: Sequence[np.ndarray] | ItemRows,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    intervals: Collection[str] | None = None,
) -> list[Figure]:
    """Each statistic on all rows, with a bootstrap interval over items (the same resamples for every statistic,
    drawn a block at a time), or its asymptotic interval above its `bootstrap_items`; only the value for a
    statistic not named in `intervals` (when given)."""
    rows = ItemRows.of(groups)
    n, n_items = int(human.size), rows.n_items
    out: list[Figure | None] = []
    pending: dict[int, tuple[Statistic, float, Resampler]] = {}
    for stat in stats:
        if stat.reason is not None:
            out.append(Figure(stat.name, None, None, n, n_items, note=f"not applicable: {stat.reason}"))
            continue
        judge = views[stat.view]
        value = stat(human, judge) if n_items else float("nan")
        if not np.isfinite(value):
            note = "undefined on these data (constant values, one class only, or too few items)"
            out.append(Figure(stat.name, None, None, n, n_items, note=note))
        elif stat.asymptotic is not None and stat.bootstrap_items is not None and n_items > stat.bootstrap_items:
            ci = stat.asymptotic(value, n_items, confidence)
            out.append(Figure(stat.name, value, ci, n, n_items, note=stat.asymptotic_note))
        elif intervals is not None and stat.name not in intervals:
            out.append(Figure(stat.name, value, None, n, n_items))
        else:
            pending[len(out)] = (stat, value, resampler(stat, human, judge, rows))
            out.append(None)
    collected: dict[int, list[np.ndarray]] = {place: [] for place in pending}

    def block(index: np.ndarray) -> list[np.ndarray]:
        weights = rows.weights(index)
        return [resample(index, weights) for _, _, resample in pending.values()]

    for resampled in _blocks(block, rows, resamples, seed) if pending else ():
        for place, values in zip(collected, resampled, strict=True):
            collected[place].append(values)
    for place, (stat, value, _) in pending.items():
        interval, undefined = percentile_interval(np.concatenate(collected[place]), confidence)
        undefined_note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        out[place] = Figure(stat.name, value, interval, n, n_items, note=undefined_note)
    return [figure for figure in out if figure is not None]
