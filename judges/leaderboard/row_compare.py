"""Two leaderboard rows compared on the same items: pass rates per item, a labelled statistic, or a judge benchmark's
pairwise statistic; and the rule that says whether a row beats another (a baseline, or a jury's best member)."""

from __future__ import annotations

from judges.leaderboard.columns import higher_is_better
from judges.leaderboard.entries import Entry
from judges.leaderboard.label_paired import label_difference
from judges.leaderboard.pair_draws import pair_difference
from judges.runs.paired_difference import Difference, paired_difference

PAIRED, INTERVAL, UNCHECKED = "paired bootstrap", "95% interval vs baseline point", "no baseline to beat"


def compare_entries(a: Entry, b: Entry) -> Difference | None:
    """a - b on the same items, or None when neither way applies (the interval rule then decides)."""
    if a.item_values is not None or b.item_values is not None:
        return paired_difference(a.item_values, b.item_values)
    if a.paired is not None and b.paired is not None:
        return label_difference(a.paired, b.paired)
    if a.pairwise is not None and b.pairwise is not None:
        return pair_difference(a.pairwise, b.pairwise)
    return None


def beats(entry: Entry, other: Entry | None, chance: float | None = None) -> tuple[bool, str, str]:
    """Whether the entry beats the other row (or, with none, chance), the test used and its figures: the paired
    bootstrap where both rows rest on the same items, else the entry's 95% interval bound beyond the other's figure
    (a system-aware figure, a statistic without a paired form)."""
    higher = higher_is_better(entry.statistic)
    if other is not None:
        diff = compare_entries(entry, other)
        if diff is not None:
            return (diff.low > 0 if higher else diff.high < 0), PAIRED, diff.describe()
        point = float(other.value)  # type: ignore[arg-type]
    elif chance is not None:
        point = chance
    else:
        return True, UNCHECKED, "no baseline with a figure to compare"
    bound = entry.ci_low if higher else entry.ci_high
    if bound is None:
        return False, INTERVAL, "no 95% interval to compare"
    ahead = bound > point if higher else bound < point
    sign = ">" if higher else "<"
    if not ahead:
        sign = "<=" if higher else ">="
    return ahead, INTERVAL, f"95% interval {'lower' if higher else 'upper'} bound {bound:.3f} {sign} {point:.3f}"
