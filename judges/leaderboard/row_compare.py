"""Two leaderboard rows compared on the same items: pass rates per item, or a labelled statistic."""

from __future__ import annotations

from judges.leaderboard.entries import Entry
from judges.leaderboard.label_paired import label_difference
from judges.runs.paired_difference import Difference, paired_difference


def compare_entries(a: Entry, b: Entry) -> Difference | None:
    """a - b on the same items, or None when neither way applies (the interval rule then decides)."""
    if a.item_values is not None or b.item_values is not None:
        return paired_difference(a.item_values, b.item_values)
    if a.paired is not None and b.paired is not None:
        return label_difference(a.paired, b.paired)
    return None
