"""The draw of a labelling queue: strata over the judges' scores and disagreement, disagreement drawn more often."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judges.labelling.graded import GradedPool

AGREEMENT_WEIGHT = 0.2
DEFAULT_BINS = 5


@dataclass(frozen=True)
class ItemStanding:
    """Where an item stands among the judges: mean normalised score (None: all null), spread, and its stratum."""

    id: str
    score: float | None
    spread: float
    verdicts: int  # judges with a grade or a null
    stratum: str


@dataclass(frozen=True)
class Chosen:
    """A drawn item with the reasons: its stratum, the disagreement, and its inclusion probability."""

    id: str
    stratum: str
    disagreement: float
    score: float | None
    stratum_size: int
    stratum_draws: int

    @property
    def inclusion_probability(self) -> float:
        return self.stratum_draws / self.stratum_size

    @property
    def weight(self) -> float:
        return self.stratum_size / self.stratum_draws


def tier(spread: float) -> str:
    return "none" if spread == 0 else "some" if spread <= 0.5 else "strong"


def score_bin(score: float | None, bins: int) -> str:
    if score is None:
        return "null"
    index = min(int(score * bins), bins - 1)
    return f"[{index / bins:.2f}, {(index + 1) / bins:.2f}{']' if index == bins - 1 else ')'}"


def standing(pool: GradedPool, item_id: str, bins: int) -> ItemStanding | None:
    """The item's standing, or None when no judge gave it a verdict (every run failed on it)."""
    verdicts = pool.verdicts[item_id].values()
    grades = [pool.normalised(v.grade) for v in verdicts if v.state == "grade" and v.grade is not None]
    nulls = sum(v.state == "null" for v in verdicts)
    if not grades and not nulls:
        return None
    spread = 1.0 if grades and nulls else (max(grades) - min(grades) if grades else 0.0)
    score = float(np.mean(grades)) if grades else None
    return ItemStanding(
        item_id,
        score,
        round(spread, 10),
        len(grades) + nulls,
        f"score {score_bin(score, bins)}, disagreement {tier(spread)}",
    )


def allocate(sizes: Sequence[int], priorities: Sequence[float], n: int) -> list[int]:
    """Draws per stratum: all when n covers everything; else one each (when n allows), the rest in proportion to
    size x priority by largest remainders, never more than a stratum holds."""
    if n >= sum(sizes):
        return list(sizes)
    alloc = [1] * len(sizes) if n >= len(sizes) else [0] * len(sizes)
    remaining = n - sum(alloc)
    while remaining > 0:  # Hamilton's largest remainders; a stratum that fills up passes its share on
        open_ = [h for h, size in enumerate(sizes) if alloc[h] < size]
        weights = {h: sizes[h] * priorities[h] for h in open_}
        total = sum(weights.values())
        quotas = {h: remaining * (weights[h] / total if total else 1 / len(open_)) for h in open_}
        for h in open_:
            alloc[h] += min(math.floor(quotas[h]), sizes[h] - alloc[h])
        leftover = n - sum(alloc)
        for h in sorted(open_, key=lambda h: (-(quotas[h] - math.floor(quotas[h])), h)):
            if leftover and alloc[h] < sizes[h]:
                alloc[h] += 1
                leftover -= 1
        remaining = n - sum(alloc)
    return alloc


@dataclass(frozen=True)
class Draw:
    """The chosen items in labelling order, the population size, and each stratum's (size, draws)."""

    chosen: list[Chosen]
    population: int
    strata: dict[str, tuple[int, int]]
    seed: int

    @property
    def uniform(self) -> bool:
        """Every item of the population had the same chance of being drawn: no reweighting is needed."""
        return len({round(k / size, 12) for size, k in self.strata.values()}) <= 1


def draw(pool: GradedPool, n: int, *, seed: int = 0, bins: int = DEFAULT_BINS) -> Draw:
    """Draw up to `n` items; the queue is shuffled (seeded), so strata do not come in blocks.

    Each item falls in a stratum: its score bin (the mean of the judges' grades, normalised to [0, 1], in `bins`
    equal bins; "null" when every judge gave a null) crossed with its disagreement tier (the spread of the
    normalised grades: none, some <= 0.5, strong > 0.5; a null beside a grade is a spread of 1). Every stratum
    gets one item when the queue is long enough (so every score range is seen), and the rest is shared in
    proportion to stratum size x (AGREEMENT_WEIGHT + mean spread): a stratum where the judges disagree fully
    is drawn (1 + 0.2) / 0.2 = 6 times as densely as one where they agree. Within a stratum the draw is simple
    random sampling without replacement (numpy, seeded), so an item's inclusion probability is exactly
    draws / size of its stratum, and 1 / probability is its inverse-probability weight.
    """
    standings = [s for i in pool.verdicts if (s := standing(pool, i, bins)) is not None]
    strata: dict[str, list[ItemStanding]] = {}
    for item in standings:
        strata.setdefault(item.stratum, []).append(item)
    names = sorted(strata)
    members = [sorted(strata[name], key=lambda s: s.id) for name in names]
    priorities = [AGREEMENT_WEIGHT + float(np.mean([s.spread for s in group])) for group in members]
    counts = allocate([len(group) for group in members], priorities, n)
    rng = np.random.default_rng(seed)
    chosen: list[Chosen] = []
    for name, group, k in zip(names, members, counts):
        for index in sorted(rng.choice(len(group), size=k, replace=False).tolist()):
            item = group[index]
            chosen.append(Chosen(item.id, name, item.spread, item.score, len(group), k))
    order = rng.permutation(len(chosen))
    strata_counts = {name: (len(group), k) for name, group, k in zip(names, members, counts)}
    return Draw([chosen[i] for i in order], len(standings), strata_counts, seed)
