"""The bootstrap: one seeded index matrix of resampled items, expanded to their label rows; percentile intervals."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judges.agreement.statistics import Statistic

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
MIN_DEFINED_SHARE = 0.5  # fewer defined resamples than this and no interval is given


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


def resample_items(n_items: int, resamples: int, seed: int) -> np.ndarray:
    """The (resamples, n_items) index matrix: each row draws n_items items with replacement."""
    return np.random.default_rng(seed).integers(0, n_items, size=(resamples, n_items))


def resample_rows(groups: Sequence[np.ndarray], index: np.ndarray) -> np.ndarray | list[np.ndarray]:
    """Row indices of each resample: an item brings all its label rows (one per annotator, or annotator pair).

    When every item has the same number of rows this is one (resamples, rows) matrix; otherwise a list.
    """
    sizes = {len(g) for g in groups}
    if len(sizes) == 1:
        members = np.stack(groups)  # (items, rows per item)
        return members[index].reshape(index.shape[0], -1)
    return [np.concatenate([groups[i] for i in row]) for row in index]


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[tuple[float, float] | None, int]:
    """The percentile interval of the defined resample values, and how many resamples were undefined."""
    defined = values[np.isfinite(values)]
    undefined = int(values.size - defined.size)
    if defined.size < MIN_DEFINED_SHARE * values.size or defined.size == 0:
        return None, undefined
    tail = round((1 - confidence) * 50, 10)  # 2.5 for 95%, without the float residue
    low, high = np.percentile(defined, [tail, 100 - tail])
    return (float(low), float(high)), undefined


def resample_values(
    stat: Statistic, human: np.ndarray, judge: np.ndarray, rows: np.ndarray | list[np.ndarray]
) -> np.ndarray:
    """The statistic on every resample: one batched call where it has one, else one call per resample."""
    if stat.batch is not None and isinstance(rows, np.ndarray):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(stat.batch(human[rows], judge[rows]), dtype=float)
    return np.array([stat(human[r], judge[r]) for r in rows], dtype=float)


def figures(
    stats: Sequence[Statistic],
    human: np.ndarray,
    views: Mapping[str, np.ndarray],
    groups: Sequence[np.ndarray],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> list[Figure]:
    """Each statistic on all rows, with a bootstrap interval over items (the same resamples for every statistic)."""
    n, n_items = int(human.size), len(groups)
    rows = resample_rows(groups, resample_items(n_items, resamples, seed)) if n_items else []
    out = []
    for stat in stats:
        if stat.reason is not None:
            out.append(Figure(stat.name, None, None, n, n_items, note=f"not applicable: {stat.reason}"))
            continue
        judge = views[stat.view]
        value = stat(human, judge) if n_items else float("nan")
        if not np.isfinite(value):
            out.append(
                Figure(
                    stat.name,
                    None,
                    None,
                    n,
                    n_items,
                    note="undefined on these data (constant values, one class only, or too few items)",
                )
            )
            continue
        ci, undefined = percentile_interval(resample_values(stat, human, judge, rows), confidence)
        note = f"{undefined} of {resamples} resamples undefined" if undefined else None
        out.append(Figure(stat.name, value, ci, n, n_items, note=note))
    return out
