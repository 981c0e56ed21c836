"""Choosing the best judge per evaluation and metric: rank, treat overlapping intervals as ties, then cost, speed."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from judges.leaderboard.config import Selection
from judges.leaderboard.entries import Entry


@dataclass
class Pick:
    evaluation: str
    metric: str
    statistic: str
    winner: Entry | None
    leader: Entry | None
    tied: list[str]
    excluded: dict[str, str]  # candidate -> why a constraint removed it

    def reason(self) -> str:
        if self.winner is None:
            return "no eligible candidate with a figure"
        if self.leader is None or self.winner.candidate == self.leader.candidate:
            return "highest figure" + (f"; tied with {', '.join(t for t in self.tied if t != self.winner.candidate)}"
                                       if len(self.tied) > 1 else "")
        tie = f"tied with the leader {self.leader.candidate} (overlapping 95% intervals)"
        if self.winner.cost_per_1k_calls < self.leader.cost_per_1k_calls:
            return (f"{tie} and cheaper ({self.winner.cost_per_1k_calls:.4f} vs {self.leader.cost_per_1k_calls:.4f} "
                    "USD per 1k calls)")
        return (f"{tie}, as cheap and faster ({self.winner.seconds_per_call:.2f} vs {self.leader.seconds_per_call:.2f} "
                "s per call)")


def _overlaps(entry: Entry, leader: Entry) -> bool:
    if entry.ci_high is None or leader.ci_low is None:
        return entry.value == leader.value
    return entry.ci_high >= leader.ci_low


def _excluded(entry: Entry, selection: Selection, unit_test_totals: dict[str, float | None]) -> str | None:
    if selection.max_cost_per_1k_calls is not None and entry.cost_per_1k_calls > selection.max_cost_per_1k_calls:
        return f"costs {entry.cost_per_1k_calls:.4f} USD per 1k calls > {selection.max_cost_per_1k_calls:g}"
    if selection.max_failure_rate is not None and (entry.failure_rate or 0.0) > selection.max_failure_rate:
        return f"failure rate {entry.failure_rate:.3f} > {selection.max_failure_rate:g}"
    if selection.min_unit_test_pass_rate is not None:
        total = unit_test_totals.get(entry.candidate)
        if total is None or total < selection.min_unit_test_pass_rate:
            return f"unit-test pass rate {total if total is not None else 'unknown'} < {selection.min_unit_test_pass_rate:g}"
    return None


def pick_best(entries: list[Entry], selection: Selection) -> list[Pick]:
    """One pick per (evaluation, metric); baselines (oracle, constants) are references and never win."""
    totals: dict[str, float | None] = {}  # a candidate's lowest unit-test total over the evaluations
    for entry in entries:
        if entry.metric == "total" and entry.evaluation.startswith("unit_tests"):
            previous = totals.get(entry.candidate, entry.value)
            totals[entry.candidate] = None if previous is None or entry.value is None else min(previous, entry.value)
    groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[(entry.evaluation, entry.metric)].append(entry)
    picks = []
    for (evaluation, metric), group in groups.items():
        excluded = {}
        eligible = []
        for entry in group:
            why = "a baseline, shown for reference" if entry.kind == "baseline" else _excluded(entry, selection, totals)
            if why:
                excluded[entry.candidate] = why
            elif entry.value is not None:
                eligible.append(entry)
        if not eligible:
            picks.append(Pick(evaluation, metric, group[0].statistic, None, None, [], excluded))
            continue
        leader = max(eligible, key=lambda e: e.value)  # type: ignore[arg-type, return-value]
        tied = [e for e in eligible if _overlaps(e, leader)]
        winner = min(tied, key=lambda e: (e.cost_per_1k_calls, e.seconds_per_call, -(e.value or 0.0)))
        picks.append(Pick(evaluation, metric, leader.statistic, winner, leader, [e.candidate for e in tied], excluded))
    return picks
