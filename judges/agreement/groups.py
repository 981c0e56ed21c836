"""Per-question agreement, for items that share a question or source (their `group`): the correlation within each
group averaged over groups (SummEval's summary-level figures, Fabbri et al., TACL 2021) and the tie-calibrated
pairwise accuracy within groups (acc*_eq: Deutsch, Foster and Freitag, EMNLP 2023, as the WMT metrics tasks use it
since 2023), with percentile intervals from resampling whole groups."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from judges.agreement.bootstrap import Figure, percentile_interval, resample_blocks
from judges.labels.schema import LabelType

if TYPE_CHECKING:
    from judges.labels.schema import LabelledSet

CORRELATIONS = {"group_pearson": "pearson", "group_spearman": "spearman", "group_kendall": "kendall_tau_b"}
PAIRWISE = "pairwise_accuracy_tie_calibrated"


@dataclass(frozen=True)
class Pairs:
    """Every pair of items within a group: its group, the human relation (-1, 0, +1) and the judge's difference."""

    group: np.ndarray
    human: np.ndarray
    judge_gap: np.ndarray
    n_groups: int

    @classmethod
    def within(cls, codes: np.ndarray, human: np.ndarray, judge: np.ndarray, n_groups: int) -> Pairs:
        order = np.argsort(codes, kind="stable")
        codes, human, judge = codes[order], human[order], judge[order]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        ends = np.r_[starts[1:], codes.size]
        firsts, seconds = [], []
        for start, end in zip(starts, ends, strict=True):
            if end - start > 1:
                a, b = np.triu_indices(end - start, k=1)
                firsts.append(a + start)
                seconds.append(b + start)
        a = np.concatenate(firsts) if firsts else np.empty(0, dtype=np.int64)
        b = np.concatenate(seconds) if seconds else np.empty(0, dtype=np.int64)
        return cls(codes[a], np.sign(human[a] - human[b]), judge[a] - judge[b], n_groups)


def tie_calibrated_accuracy(pairs: Pairs, group_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k,) acc*_eq and its tie threshold for each row of (k, groups) group weights: per group, the share of its
    pairs whose relation the judge gets right (a judge tie when |difference| <= epsilon), averaged over groups with
    the weights; epsilon chosen per row to maximize it among 0 and every |difference| (the smallest on equal
    accuracy). One sort of the differences serves every row."""
    pairs_per_group = np.bincount(pairs.group, minlength=pairs.n_groups).astype(float)
    gap = np.abs(pairs.judge_gap)
    order = np.argsort(gap, kind="stable")
    gap = gap[order]
    tie = (pairs.human == 0)[order]
    agrees = ((pairs.human != 0) & (np.sign(pairs.judge_gap) == pairs.human))[order]
    candidates = np.unique(np.r_[0.0, gap])
    upto = np.searchsorted(gap, candidates, side="right")  # pairs with |difference| <= epsilon
    has_pairs = pairs_per_group > 0
    accuracy, epsilon = np.full(group_weights.shape[0], np.nan), np.full(group_weights.shape[0], np.nan)
    for row, weights in enumerate(group_weights):
        total = weights[has_pairs].sum()
        if total <= 0:
            continue
        per_pair = (weights / np.where(has_pairs, pairs_per_group, 1.0) / total)[pairs.group[order]]
        tie_cum = np.r_[0.0, np.cumsum(per_pair * tie)]
        agree_cum = np.r_[0.0, np.cumsum(per_pair * agrees)]
        at = tie_cum[upto] + agree_cum[-1] - agree_cum[upto]
        best = int(np.argmax(at >= at.max() - 1e-12))  # the smallest epsilon reaching the maximum
        accuracy[row], epsilon[row] = at[best], candidates[best]
    return accuracy, epsilon


def per_group_correlations(
    codes: np.ndarray, human: np.ndarray, judge: np.ndarray, n_groups: int
) -> dict[str, np.ndarray]:
    """Each group's Pearson, Spearman and Kendall tau-b (nan where a group has fewer than two items or constant
    values on either side)."""
    out = {name: np.full(n_groups, np.nan) for name in CORRELATIONS}
    order = np.argsort(codes, kind="stable")
    codes, human, judge = codes[order], human[order], judge[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ends = np.r_[starts[1:], codes.size]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start, end in zip(starts, ends, strict=True):
            h, j = human[start:end], judge[start:end]
            if end - start < 2 or np.ptp(h) == 0 or np.ptp(j) == 0:
                continue
            group = codes[start]
            out["group_pearson"][group] = stats.pearsonr(h, j).statistic
            out["group_spearman"][group] = stats.spearmanr(h, j).statistic
            out["group_kendall"][group] = stats.kendalltau(h, j).statistic
    return out


def group_figures(
    groups: Sequence[str], human: np.ndarray, judge: np.ndarray, *, resamples: int, seed: int, confidence: float
) -> tuple[list[Figure], float] | None:
    """The per-group figures of items (one value per item: its annotators' mean label, the judge's value) and the
    tie threshold acc*_eq chose; None with fewer than two groups of two or more items."""
    names, codes = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    return coded_figures(codes, len(names), human, judge, resamples=resamples, seed=seed, confidence=confidence)


def coded_figures(
    codes: np.ndarray,
    n_groups: int,
    human: np.ndarray,
    judge: np.ndarray,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[list[Figure], float] | None:
    """group_figures on each item's group index into `n_groups` groups."""
    n = int(codes.size)
    sizes = np.bincount(codes, minlength=n_groups)
    if int((sizes >= 2).sum()) < 2:
        return None
    correlations = per_group_correlations(codes, human, judge, n_groups)
    pairs = Pairs.within(codes, human, judge, n_groups)
    point = {name: float(np.nanmean(v)) if np.isfinite(v).any() else np.nan for name, v in correlations.items()}
    accuracy, chosen = tie_calibrated_accuracy(pairs, np.ones((1, n_groups)))
    point[PAIRWISE], epsilon = float(accuracy[0]), float(chosen[0])
    drawn: dict[str, list[np.ndarray]] = {name: [] for name in point}
    for index in resample_blocks(n_groups, resamples, seed, block_values=200_000):
        weights = np.stack([np.bincount(row, minlength=n_groups) for row in index]).astype(float)
        for name, values in correlations.items():
            defined = np.isfinite(values)
            total = weights[:, defined].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                drawn[name].append(weights[:, defined] @ values[defined] / total)
        drawn[PAIRWISE].append(tie_calibrated_accuracy(pairs, weights)[0])
    figures = []
    for name, value in point.items():
        defined_groups = int(np.isfinite(correlations[name]).sum()) if name in correlations else int((sizes >= 2).sum())
        note = f"mean over {defined_groups} of {n_groups} groups"
        if name == PAIRWISE:
            note += f"; tie threshold {epsilon:.6g} (judge differences up to it count as a tie)"
        if not np.isfinite(value):
            figures.append(Figure(name, None, None, n, n, note="undefined: no group with varied values on both sides"))
            continue
        ci, undefined = percentile_interval(np.concatenate(drawn[name]), confidence)
        note += f"; {undefined} of {resamples} resamples undefined" if undefined else ""
        figures.append(Figure(name, value, ci, n, n, note=note + "; intervals resample groups"))
    return figures, epsilon


@dataclass(frozen=True)
class GroupAgreement:
    """The per-group figures and the tie threshold acc*_eq chose on all groups."""

    figures: list[Figure]
    tie_threshold: float
    n_groups: int
    codes: np.ndarray | None = field(default=None, compare=False, repr=False)  # each item's group, -1 none (not saved)

    def to_dict(self) -> dict[str, object]:
        return {
            "figures": [f.to_dict() for f in self.figures],
            "tie_threshold": self.tie_threshold,
            "groups": self.n_groups,
        }


def measure_groups(
    labels: LabelledSet,
    item_ids: Sequence[str],
    human_rows: np.ndarray,
    judge_values: np.ndarray,
    row_item: np.ndarray,
    label_type: LabelType,
    notes: list[str],
    **bootstrap: Any,
) -> GroupAgreement | None:
    """The per-group figures from measure's label rows, when items name their group (None for preference labels,
    or when no group holds two items); items that name none while others do are set aside, and `notes` says so."""
    if len(labels.items) == len(item_ids) and item_ids == labels.by_item[0]:  # one label per item, all kept
        groups = [item.group for item in labels.items]
    else:
        named = {item.id: item.group for item in labels.items}
        groups = [named.get(i) for i in item_ids]
        del named
    if label_type is LabelType.PREFERENCE or not any(g is not None for g in groups):
        return None
    n_items = len(item_ids)
    human = np.bincount(row_item, weights=human_rows, minlength=n_items) / np.bincount(row_item, minlength=n_items)
    judge = np.empty(n_items)
    judge[row_item] = judge_values
    keep = np.array([g is not None for g in groups])
    if not keep.all():
        notes.append(f"{int((~keep).sum())} items name no group: set aside from the per-group figures")
    names, kept_codes = np.unique(
        np.asarray([g for g in groups if g is not None], dtype=object).astype(str), return_inverse=True
    )
    found = coded_figures(kept_codes, len(names), human[keep], judge[keep], **bootstrap)
    if found is None:
        notes.append("no per-group figures: fewer than two groups hold two or more items")
        return None
    figures, epsilon = found
    codes = np.full(n_items, -1, dtype=np.int32)
    codes[keep] = kept_codes
    return GroupAgreement(figures, epsilon, len(names), codes)


def group_draws(
    name: str, codes: np.ndarray, human: np.ndarray, judges: list[np.ndarray], resamples: int, seed: int
) -> np.ndarray | None:
    """(resamples, judges) of the per-group figure `name` of each judge on the same resamples of the groups (as
    its interval resamples them); `codes` is each item's group (-1: none, set aside). None for another figure."""
    if name not in CORRELATIONS and name != PAIRWISE:
        return None
    keep = codes >= 0
    codes, human = codes[keep], human[keep]
    n_groups = int(codes.max()) + 1
    if name == PAIRWISE:
        pairs = [Pairs.within(codes, human, judge[keep], n_groups) for judge in judges]
    else:
        values = [per_group_correlations(codes, human, judge[keep], n_groups)[name] for judge in judges]
    out = []
    for index in resample_blocks(n_groups, resamples, seed, block_values=200_000):
        weights = np.stack([np.bincount(row, minlength=n_groups) for row in index]).astype(float)
        columns = []
        for c in range(len(judges)):
            if name == PAIRWISE:
                columns.append(tie_calibrated_accuracy(pairs[c], weights)[0])
                continue
            defined = np.isfinite(values[c])
            with np.errstate(invalid="ignore", divide="ignore"):
                columns.append(weights[:, defined] @ values[c][defined] / weights[:, defined].sum(axis=1))
        out.append(np.stack(columns, axis=1))
    return np.concatenate(out)
