"""Successive halving: every candidate on a few train tests, the better half on twice as many, until one is left."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Score:
    """A candidate's figures on one round's tests: passes out of n (a format failure is not a pass), the Wilson
    interval, and what it cost (prompt plus completion tokens, and the template's length) to break ties. `missing`
    says why a candidate that graded nothing has no figure: it is never kept nor chosen."""

    name: str
    passed: int
    n: int
    low: float | None
    high: float | None
    tokens: int
    length: int
    order: int
    missing: str | None = None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.n if self.n and self.missing is None else None

    def rank_key(self) -> tuple[float, ...]:
        """More passes first; a tie goes to the cheaper call, then the shorter template, then the space's order."""
        return (-self.passed, self.tokens, self.length, self.order)

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.name,
            "passed": self.passed,
            "n": self.n,
            "pass_rate": self.pass_rate,
            "ci95": [None, None] if self.missing else [self.low, self.high],
            "tokens": self.tokens,
            "template_chars": self.length,
            "no_figure": self.missing,
        }


@dataclass
class Round:
    tests: int
    scores: list[Score]
    kept: list[str]

    def to_dict(self, unit: str = "tests") -> dict[str, Any]:
        """The round as a report writes it; `unit` names what it was scored on ("tests", or "items" of labels)."""
        return {unit: self.tests, "scores": [score.to_dict() for score in self.scores], "kept": self.kept}


@dataclass
class Halving:
    """The rounds run, the winner, and why the search ended ("one left", "tests used up", "budget", or "nothing
    graded": no candidate of a round graded anything, so none is chosen and the winner is None)."""

    rounds: list[Round] = field(default_factory=list)
    winner: str | None = None
    ended: str = ""
    message: str = ""


def schedule(n_candidates: int, n_tests: int, first: int) -> list[tuple[int, int]]:
    """(candidates, tests) per round: halve the candidates (rounding up) and double the tests until one candidate
    is left or every test is used (the last round then keeps only the best)."""
    rounds: list[tuple[int, int]] = []
    alive, tests = n_candidates, min(first, n_tests)
    while True:
        rounds.append((alive, tests))
        alive = math.ceil(alive / 2)
        if alive <= 1 or tests >= n_tests:
            return rounds
        tests = min(tests * 2, n_tests)


def no_figure(what: str, over: str, failure_kinds: Counter[str], nulls: int = 0) -> str:
    """Why a candidate has no figure, e.g. "no grade on any of the 8 items: 8 failed, mostly unparseable"."""
    failed = sum(failure_kinds.values())
    parts = [f"{failed} failed, mostly {failure_kinds.most_common(1)[0][0]}"] if failed else []
    parts += [f"{nulls} null"] if nulls else []
    return f"no {what} on any of the {over}" + (f": {'; '.join(parts)}" if parts else "")


Evaluate = Callable[[Sequence[str], int], list[Score] | None]
Affordable = Callable[[int, int, int], str | None]


def halve(names: Sequence[str], n_tests: int, first: int, evaluate: Evaluate, affordable: Affordable) -> Halving:
    """Run the schedule. `evaluate(names, tests)` scores those candidates on the first `tests` tests (None: the
    round was stopped by the budget). `affordable(round, candidates, new_tests)` says why a round cannot be paid
    for (None when it can). A round not run leaves the choice to the last finished round's leader. Only candidates
    with a figure are kept; a round where none has one ends the search with no winner."""
    result = Halving()
    alive = list(names)
    done_tests = 0
    plan = schedule(len(names), n_tests, first)
    for index, (_, tests) in enumerate(plan):
        reason = affordable(index, len(alive), tests - done_tests)
        scores = None if reason else evaluate(alive, tests)
        if scores is None:
            result.ended = "budget"
            stopped = "the budget (--max-cost or --budget-calls) stopped a round; its figures are not used"
            result.message = reason or stopped
            break
        ranked = sorted(scores, key=lambda s: (s.missing is not None, s.rank_key()))
        figured = [s for s in ranked if s.missing is None]
        last = index == len(plan) - 1
        alive = [s.name for s in figured[: 1 if last else math.ceil(len(ranked) / 2)]]
        result.rounds.append(Round(tests, ranked, list(alive)))
        if not alive:
            result.ended = "nothing graded"
            result.message = f"no candidate has a figure in round {index + 1} ({ranked[0].missing}); none is chosen"
            return result
        done_tests = tests
        if last or len(alive) == 1:  # one left (the others had no figure): no further round to run
            result.ended = "tests used up" if last and tests >= n_tests else "one left"
            break
    result.winner = result.rounds[-1].kept[0] if result.rounds else None
    return result
