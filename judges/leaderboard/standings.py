"""Rank intervals and tie groups on one evaluation and metric: every candidate recomputed on the same bootstrap
resamples of the items they share (a judge benchmark's pairwise statistic too, on its label rows), each candidate's
rank interval read off those resamples (as Chatbot Arena gives one), and clusters of candidates whose paired
differences are not significant (two-sided paired bootstrap, Holm's correction over the pairs; a new cluster starts
at a candidate significantly worse than one of the cluster above it, as the WMT metrics task groups metrics)."""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judges.agreement.bootstrap import ItemRows, resample_blocks, resampler
from judges.agreement.groups import group_draws
from judges.agreement.system_draws import joint_draws
from judges.leaderboard.columns import higher_is_better
from judges.leaderboard.entries import Entry
from judges.leaderboard.label_paired import LabelPairs
from judges.leaderboard.pair_draws import joint_pair_draws
from judges.runs.paired_difference import RESAMPLES, SEED

ALPHA = 0.05  # the family-wise error rate of a group's pairwise tests
RANK_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Standing:
    """A candidate's place: its rank by value (1 = best), the rank interval over the resamples, its tie group."""

    rank: int
    rank_interval: tuple[int, int]
    cluster: int
    draws: np.ndarray | None = field(default=None, repr=False, compare=False)  # its rank on each resample


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): the k-th smallest of m times (m - k + 1), kept monotone."""
    m = p_values.size
    order = np.argsort(p_values, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate(p_values[order] * (m - np.arange(m))))
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return adjusted


def _item_draws(entries: list[Entry], resamples: int, seed: int) -> np.ndarray | None:
    """(resamples, candidates) means of each candidate's per-item values on the same resamples of their items."""
    ids = sorted(entries[0].item_values or {})
    if len(ids) < 2 or any(set(e.item_values or {}) != set(ids) for e in entries):
        return None
    values = np.array([[float((e.item_values or {})[i]) for i in ids] for e in entries]).T  # (items, candidates)
    drawn = []
    for index in resample_blocks(len(ids), resamples, seed):
        counts = np.stack([np.bincount(row, minlength=len(ids)) for row in index])
        drawn.append(counts @ values / len(ids))
    return np.concatenate(drawn)


def _label_draws(entries: list[Entry], resamples: int, seed: int) -> np.ndarray | None:
    """(resamples, candidates) of each candidate's labelled statistic on the same resamples of the same items (each
    candidate's rows laid out in the first one's item order, as a paired comparison of two does)."""
    first = entries[0].paired
    if first is None or len(first.ids) < 2:
        return None
    same = [e.paired for e in entries]
    if any(p is None or p.statistic.name != first.statistic.name or set(p.ids) != set(first.ids) for p in same):
        return None
    if first.systems is not None or first.groups is not None:
        return _item_level_draws(entries, resamples, seed)
    items = ItemRows(first.row_item, len(first.ids))
    resamplers = []
    for pairs in same:
        assert pairs is not None
        where = {item: n for n, item in enumerate(pairs.ids)}
        starts = np.concatenate([[0], np.cumsum(np.bincount(pairs.row_item))])
        judge = np.concatenate([pairs.judge[starts[where[i]] : starts[where[i] + 1]] for i in first.ids])
        resamplers.append(resampler(first.statistic, first.human, judge, items))
    drawn = []
    for index in resample_blocks(items.n_items, resamples, seed):
        weights = items.weights(index)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            drawn.append(np.stack([resample(index, weights) for resample in resamplers], axis=1))
    return np.concatenate(drawn)


def _item_values(rows: np.ndarray, row_item: np.ndarray, n_items: int, place: np.ndarray | None) -> np.ndarray:
    """An item's value from its rows (every row of an item holds the judge's value), in another order when given."""
    values = np.empty(n_items)
    values[row_item] = rows
    return values if place is None else values[place]


def _same_design(pair: LabelPairs, first: LabelPairs, place: np.ndarray | None) -> bool:
    """Whether two candidates' items name the same systems, or lie in the same questions (`place`: where the
    first one's items sit among the pair's)."""
    if (pair.systems is None) != (first.systems is None) or (pair.groups is None) != (first.groups is None):
        return False
    if pair.systems is not None and first.systems is not None:
        return pair.systems.names == first.systems.names and np.array_equal(
            pair.systems.codes if place is None else pair.systems.codes[place], first.systems.codes
        )
    if pair.groups is not None and first.groups is not None:
        return np.array_equal(pair.groups if place is None else pair.groups[place], first.groups)
    return True


def _item_level_draws(entries: list[Entry], resamples: int, seed: int) -> np.ndarray | None:
    """(resamples, candidates) of each candidate's system-aware figure (items drawn within their systems, as the
    figure's interval draws them; `judges.agreement.system_draws`) or per-group figure (groups drawn) on the same
    resamples, its items laid out in the first one's order (one value per item: the mean label, the judge's)."""
    pairs = [e.paired for e in entries]
    first = pairs[0]
    assert first is not None
    n_items = len(first.ids)
    counts = np.bincount(first.row_item, minlength=n_items)
    human = np.bincount(first.row_item, weights=first.human, minlength=n_items) / counts
    judges, saids = [], []
    for pair in pairs:
        assert pair is not None
        place = None
        if pair.ids != first.ids:
            where = {item: n for n, item in enumerate(pair.ids)}
            place = np.fromiter((where[item] for item in first.ids), dtype=np.int64, count=n_items)
        if not _same_design(pair, first, place):
            return None
        judges.append(_item_values(pair.judge, pair.row_item, n_items, place))
        if pair.said is not None:
            saids.append(_item_values(pair.said, pair.row_item, n_items, place))
    name = first.statistic.name
    if first.groups is not None:
        return group_draws(name, first.groups, human, judges, resamples, seed)
    assert first.systems is not None
    points = [float(e.value) for e in entries]  # type: ignore[arg-type]
    found = saids if len(saids) == len(pairs) else None
    return joint_draws(name, first.systems.names, first.systems.codes, human, judges, found, points, resamples, seed)


def _ranks(oriented: np.ndarray) -> np.ndarray:
    """Competition ranks per row (1 = best; equal values share the better rank)."""
    return 1 + (oriented[:, None, :] > oriented[:, :, None]).sum(axis=2)


def rank_standings(entries: list[Entry], resamples: int = RESAMPLES, seed: int = SEED) -> dict[str, Standing]:
    """The standing of each entry with a figure, when all of them rest on the same items (per-item values, or the
    same labelled statistic); empty when fewer than two can be compared so."""
    entries = [e for e in entries if e.value is not None]
    if len(entries) < 2:
        return {}
    draws = _item_draws(entries, resamples, seed) if entries[0].item_values is not None else None
    if draws is None and all(e.pairwise is not None for e in entries):  # a judge benchmark's pairwise statistic
        draws = joint_pair_draws([e.pairwise for e in entries if e.pairwise is not None], resamples, seed)
    elif draws is None:
        draws = _label_draws(entries, resamples, seed)
    if draws is None:
        return {}
    sign = 1.0 if higher_is_better(entries[0].statistic) else -1.0
    draws = sign * draws[np.isfinite(draws).all(axis=1)]
    if draws.shape[0] < RESAMPLES // 2:
        return {}
    point = sign * np.array([float(e.value) for e in entries])  # type: ignore[arg-type]
    ranks = _ranks(draws)
    tail = (1 - RANK_CONFIDENCE) / 2
    low = np.quantile(ranks, tail, axis=0, method="inverted_cdf")
    high = np.quantile(ranks, 1 - tail, axis=0, method="inverted_cdf")
    order = list(np.argsort(-point, kind="stable"))
    clusters = _clusters(draws, point, order)
    rank = _ranks(point[None, :])[0]
    return {
        e.candidate: Standing(int(rank[n]), (int(low[n]), int(high[n])), clusters[n], ranks[:, n])
        for n, e in enumerate(entries)
    }


def _clusters(draws: np.ndarray, point: np.ndarray, order: list[int]) -> dict[int, int]:
    """Tie groups down the order of values: two-sided paired-bootstrap p-values of every pair, Holm-adjusted; a
    candidate opens a new group when one of the current group is significantly better."""
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    p_values = np.array(
        [
            min(1.0, 2 * min(np.mean(draws[:, a] - draws[:, b] <= 0), np.mean(draws[:, a] - draws[:, b] >= 0)))
            for a, b in pairs
        ]
    )
    adjusted = dict(zip(pairs, holm(p_values) if pairs else p_values, strict=True))
    clusters, cluster, start = {order[0]: 1}, 1, 0
    for place in range(1, len(order)):
        candidate = order[place]
        if any(
            adjusted[order[j], candidate] < ALPHA and point[order[j]] > point[candidate] for j in range(start, place)
        ):
            cluster, start = cluster + 1, place
        clusters[candidate] = cluster
    return clusters


def assign_standings(entries: list[Entry]) -> list[dict[str, Any]]:
    """Sets `rank`, `rank_interval` and `cluster` on every candidate row (baselines are the bar, not ranked) of
    each evaluation and metric whose candidates rest on the same items; returns the summary rankings across
    evaluations (`summary_rankings`)."""
    groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry.kind != "baseline":
            groups[entry.evaluation, entry.metric].append(entry)
    found: dict[tuple[str, str], dict[str, Standing]] = {}
    for key, group in groups.items():
        found[key] = rank_standings(group)
        for candidate, standing in found[key].items():
            for entry in group:
                if entry.candidate == candidate:
                    entry.rank, entry.rank_interval, entry.cluster = (
                        standing.rank,
                        standing.rank_interval,
                        standing.cluster,
                    )
    return summary_rankings(found)


def summary_rankings(found: dict[tuple[str, str], dict[str, Standing]]) -> list[dict[str, Any]]:
    """Per metric ranked on two or more evaluations: each candidate ranked on all of them, its mean rank and the 95%
    interval of that mean over the resamples (each evaluation's own, drawn independently), best first."""
    by_metric: dict[str, list[tuple[str, dict[str, Standing]]]] = defaultdict(list)
    for (evaluation, metric), standings in found.items():
        if standings:
            by_metric[metric].append((evaluation, standings))
    out = []
    for metric, ranked in by_metric.items():
        if len(ranked) < 2:
            continue
        common = set.intersection(*(set(standings) for _, standings in ranked))
        if len(common) < 2:
            continue
        rows = []
        for candidate in sorted(common):
            mean = np.mean([standings[candidate].rank for _, standings in ranked])
            series = [draws for _, standings in ranked if (draws := standings[candidate].draws) is not None]
            drawn = np.mean(series, axis=0)
            tail = (1 - RANK_CONFIDENCE) / 2
            low, high = np.quantile(drawn, [tail, 1 - tail])
            rows.append({"candidate": candidate, "mean_rank": float(mean), "interval": [float(low), float(high)]})
        rows.sort(key=lambda row: (row["mean_rank"], row["candidate"]))
        evaluations = [evaluation for evaluation, _ in ranked]
        out.append({"metric": metric, "evaluations": evaluations, "rows": rows})
    return out
