"""Choosing the best judge per evaluation and metric: it must beat the best baseline; ties go to cheaper, then faster."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from judges.leaderboard.columns import chance, higher_is_better, never_wins, oriented
from judges.leaderboard.config_types import PASS_RATE, TOTAL, Selection
from judges.leaderboard.entries import Entry
from judges.leaderboard.jury import beats_best_member
from judges.leaderboard.row_compare import beats, compare_entries

NO_WINNER = "no candidate beats the baselines"


@dataclass
class Pick:
    """The best candidate of one (evaluation, metric), or none, with every decision spelled out."""

    evaluation: str
    metric: str
    statistic: str
    winner: Entry | None
    leader: Entry | None
    tied: list[str]
    excluded: dict[str, str]  # candidate -> why it cannot win (baseline, constraint, n/a, below chance or baseline)
    baseline: Entry | None = None  # the best baseline with a figure
    reference: str = ""  # what a candidate had to beat, e.g. "always-top 0.562" or "chance 0.500"
    test: str = ""  # which test decided that the winner beats the reference (row_compare.PAIRED, INTERVAL, UNCHECKED)
    beats: str = ""  # the figures of that test
    tie: str = ""  # how the winner was told apart from the leader, when it is not the leader
    notes: list[str] = field(default_factory=list)

    def reason(self) -> str:
        if self.winner is None:
            if self.leader is None and not self.reference:
                return "no eligible candidate with a figure"
            return NO_WINNER + (f"; the bar was {self.reference}" if self.reference else "")
        text = f"beats {self.reference}: {self.beats}" if self.reference else self.beats
        if self.leader is not None and self.winner.candidate != self.leader.candidate:
            text += f"; {self.tie}"
        elif len(self.tied) > 1:
            text += f"; tied with {', '.join(t for t in self.tied if t != self.winner.candidate)}, {self.tie}"
        return text + "".join(f"; {note}" for note in self.notes)


def _constraint(entry: Entry, selection: Selection, unit_test_totals: dict[str, float | None]) -> str | None:
    if selection.max_cost_per_1k_calls is not None and entry.cost_per_1k_calls > selection.max_cost_per_1k_calls:
        return f"costs {entry.cost_per_1k_calls:.4f} USD per 1k calls > {selection.max_cost_per_1k_calls:g}"
    if selection.max_failure_rate is not None and (entry.failure_rate or 0.0) > selection.max_failure_rate:
        return f"failure rate {entry.failure_rate:.3f} > {selection.max_failure_rate:g}"
    if selection.min_unit_test_pass_rate is not None:
        total = unit_test_totals.get(entry.candidate)
        if total is None or total < selection.min_unit_test_pass_rate:
            return f"unit-test pass rate {total if total is not None else 'unknown'} < {selection.min_unit_test_pass_rate:g}"
    return None


def _same_statistic(entry: Entry, baselines: list[Entry]) -> Entry | None:
    """The best baseline measured with the entry's statistic, when the baselines' statistics differ."""
    same = [b for b in baselines if b.statistic == entry.statistic]
    if not same or len(same) == len(baselines):
        return None
    return max(same, key=lambda e: oriented(e.statistic, float(e.value)))  # type: ignore[arg-type]


def _tied(entry: Entry, leader: Entry) -> tuple[bool, str]:
    """Whether the leader cannot be told apart from the entry, and the evidence: the same tie group where both are
    ranked (standings.py), else a paired bootstrap of the two, else their intervals."""
    if entry.cluster is not None and leader.cluster is not None:
        same = entry.cluster == leader.cluster
        return same, f"tie group {entry.cluster}" + ("" if same else f", the leader's is {leader.cluster}")
    diff = compare_entries(leader, entry)
    if diff is not None:
        separated = diff.low > 0 if higher_is_better(leader.statistic) else diff.high < 0
        return not separated, diff.describe()
    if entry.ci_low is None or entry.ci_high is None or leader.ci_low is None or leader.ci_high is None:
        return entry.value == leader.value, "equal figures" if entry.value == leader.value else "no intervals"
    overlap = entry.ci_high >= leader.ci_low if higher_is_better(leader.statistic) else entry.ci_low <= leader.ci_high
    return overlap, "overlapping 95% intervals" if overlap else "separate 95% intervals"


def _tie_break(tied: list[Entry]) -> tuple[Entry, str, list[str]]:
    """The cheaper, then the faster by median latency per uncached call, then the higher figure."""
    latencies_known = all(e.latency_s_per_uncached_call is not None for e in tied)
    notes = (
        []
        if latencies_known
        else [
            "speed not compared: no latency per uncached call for "
            + ", ".join(e.candidate for e in tied if e.latency_s_per_uncached_call is None)
        ]
    )

    costs_known = all(e.cost_measured for e in tied)
    if not costs_known:
        notes.append(
            "cost not compared: not measured for " + ", ".join(e.candidate for e in tied if not e.cost_measured)
        )

    def key(e: Entry) -> tuple[float, float, float]:
        latency = e.latency_s_per_uncached_call if latencies_known else 0.0
        cost = e.cost_per_1k_calls if costs_known else 0.0
        return cost, float(latency or 0.0), -oriented(e.statistic, float(e.value))  # type: ignore[arg-type]

    ordered = sorted(tied, key=key)
    winner, runner = ordered[0], ordered[1]
    if costs_known and winner.cost_per_1k_calls < runner.cost_per_1k_calls:
        how = f"cheaper ({winner.cost_per_1k_calls:.4f} vs {runner.cost_per_1k_calls:.4f} USD per 1k calls)"
    elif latencies_known and winner.latency_s_per_uncached_call != runner.latency_s_per_uncached_call:
        how = (
            f"{'as cheap and ' if costs_known else ''}faster ({winner.latency_s_per_uncached_call:.2f} vs "
            f"{runner.latency_s_per_uncached_call:.2f} s median per uncached call)"
        )
    else:
        how = "as cheap and as fast, the higher figure kept" if costs_known else "the higher figure kept"
    return winner, how, notes


def _group_pick(
    evaluation: str, metric: str, group: list[Entry], selection: Selection, totals: dict[str, float | None]
) -> Pick:
    excluded: dict[str, str] = {}
    contenders = []
    for entry in group:
        why = (
            "the oracle, a ceiling shown for reference"
            if entry.is_oracle
            else "a baseline, shown for reference"
            if entry.kind == "baseline"
            else _constraint(entry, selection, totals)
            or (f"n/a: {entry.note or 'no figure'}" if entry.value is None else None)
            or never_wins(entry.statistic, entry.value)
        )
        if why:
            excluded[entry.candidate] = why
        else:
            contenders.append(entry)
    statistic = " / ".join(sorted({e.statistic for e in group}))
    baselines = [e for e in group if e.kind == "baseline" and e.value is not None and not e.is_oracle]
    baseline = max(baselines, key=lambda e: oriented(e.statistic, float(e.value))) if baselines else None  # type: ignore[arg-type]
    chance_level = chance(group[0].statistic) if baseline is None else None
    reference = (
        f"the best baseline {baseline.candidate} ({baseline.value:.3f})"
        if baseline is not None
        else f"chance ({chance_level:.3f})"
        if chance_level is not None
        else ""
    )
    beaten, tests = [], {}
    for entry in contenders:
        own = _same_statistic(entry, baselines) or baseline  # a figure is compared with a baseline's of its kind
        ok, test, figures = beats(entry, own, chance_level)
        if own is not baseline and own is not None:
            figures = f"vs {own.candidate} ({own.statistic} {own.value:.3f}): {figures}"
        if ok and entry.kind == "jury":
            ok, against = beats_best_member(entry, group)
            if not ok:
                excluded[entry.candidate] = f"does not beat its best member: {against}"
                continue
            figures += f"; {against}"
        if ok:
            beaten.append(entry)
            tests[entry.candidate] = (test, figures)
        else:
            excluded[entry.candidate] = f"does not beat {reference}: {figures} ({test})"
    pick = Pick(evaluation, metric, statistic, None, None, [], excluded, baseline, reference)
    if not beaten:
        return pick
    leader = max(beaten, key=lambda e: oriented(e.statistic, float(e.value)))  # type: ignore[arg-type]
    tied, evidence = [leader], {}
    for entry in beaten:
        if entry is not leader:
            same, why = _tied(entry, leader)
            if same:
                tied.append(entry)
                evidence[entry.candidate] = why
    pick.leader, pick.tied = leader, [e.candidate for e in tied]
    if len(tied) == 1:
        pick.winner, pick.tie = leader, ""
    else:
        pick.winner, how, pick.notes = _tie_break(tied)
        if pick.winner is leader:
            pick.tie = f"kept: {how}"
        else:
            pick.tie = f"tied with the leader {leader.candidate} ({evidence[pick.winner.candidate]}) and {how}"
    pick.test, pick.beats = tests[pick.winner.candidate]
    return pick


def unit_test_totals(entries: list[Entry]) -> dict[str, float | None]:
    """A candidate's lowest unit-test total over the evaluations (for `min_unit_test_pass_rate`)."""
    totals: dict[str, float | None] = {}
    for entry in entries:
        if entry.metric == TOTAL and entry.statistic == PASS_RATE:  # a unit-test total, whatever its evaluation's name
            previous = totals.get(entry.candidate, entry.value)
            totals[entry.candidate] = None if previous is None or entry.value is None else min(previous, entry.value)
    return totals


def pick_best(entries: list[Entry], selection: Selection) -> list[Pick]:
    """One pick per (evaluation, metric); baselines (oracle, constants) are what a winner must beat, never winners."""
    totals = unit_test_totals(entries)
    groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[(entry.evaluation, entry.metric)].append(entry)
    return [_group_pick(evaluation, metric, group, selection, totals) for (evaluation, metric), group in groups.items()]
