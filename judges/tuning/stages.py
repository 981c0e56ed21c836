"""The two search stages on train: each metric's templates by successive halving, then decoding settings."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.config.judge import JudgeConfig
from judges.tuning.candidates import Candidate, build_candidates, example_pool
from judges.tuning.runner import BudgetStop, CandidateRunner, Ledger, check_chosen, score, write_prompt_folder
from judges.tuning.search import Halving, Score, halve
from judges.tuning.space import TuneSpace
from judges.types import GROUSE_METRICS, UnitTest


@dataclass
class MetricSearch:
    """One metric's search: its candidates (the base first), the train tests shown as examples (left out of the
    search), how many train tests the search could use, and the rounds run; the winner is the base if none ran."""

    metric: str
    candidates: list[Candidate]
    examples: list[str]
    eval_tests: int
    halving: Halving

    @property
    def winner(self) -> Candidate:
        return chosen_candidate(self.candidates, self.halving)


def chosen_candidate(candidates: Sequence[Candidate], halving: Halving) -> Candidate:
    """The candidate the halving chose, or the base (the first) when no round ran."""
    return next((c for c in candidates if c.name == halving.winner), candidates[0])


def search_order(tests: Sequence[UnitTest], seed: int) -> list[UnitTest]:
    """The train tests in a seeded shuffled order, so a round's first few tests mix the test types."""
    order = list(tests)
    random.Random(seed).shuffle(order)
    return order


def decoding_choices(space: TuneSpace, options: JudgeConfig) -> dict[str, dict[str, Any]]:
    """Name -> overrides of the judge's settings (each checked as a JudgeConfig), the judge's own settings first."""
    axes = {name: list(values) if values else [getattr(options, name)] for name, values in space.decoding}  # type: ignore[attr-defined]
    out: dict[str, dict[str, Any]] = {"as given": {}}
    for combination in itertools.product(*axes.values()):
        overrides = {name: value for name, value in zip(axes, combination) if value != getattr(options, name)}
        if overrides:
            options.merged(**overrides)  # a value the judge cannot take fails here, before any call
            out.setdefault(", ".join(f"{k}={v}" for k, v in overrides.items()), overrides)
    return out


def tag_of(name: str, choices: dict[str, dict[str, Any]]) -> str:
    """The ledger's tag of a decoding setting: empty for the judge's own (the calls the template search made)."""
    return name if choices[name] else ""


class Budget:
    """Says whether the next round can be paid for: a call budget is checked against the distinct calls needed
    (the same on a repeated search); a cost limit is enforced by the runs themselves."""

    def __init__(self, ledger: Ledger, calls: int | None) -> None:
        self.ledger, self.calls = ledger, calls
        self.rate = 1.0  # distinct calls per candidate and new test, learnt from the last round

    def check(self, round_index: int, candidates: int, new_tests: int) -> str | None:
        if self.calls is None:
            return None
        projected = math.ceil(candidates * new_tests * self.rate)
        left = self.calls - self.ledger.needed
        if projected <= left:
            return None
        return f"round {round_index + 1} would need about {projected} calls; {max(left, 0)} of --budget-calls {self.calls} are left"

    def learn(self, added: int, candidates: int, new_tests: int) -> None:
        if candidates * new_tests:
            self.rate = max(added / (candidates * new_tests), 0.1)


def search_metric(
    metric: str,
    space: TuneSpace,
    root: Path,
    train: Sequence[UnitTest],
    base_sources: dict[str, str],
    runner: CandidateRunner,
    budget: Budget,
    out: Path,
    progress: Callable[[str], None],
) -> MetricSearch:
    """Successive halving over one metric's candidates; each runs the whole pipeline with only that metric's
    template changed, and is scored on that metric's pass rate. Tests used as examples are left out."""
    pool = example_pool(metric, space.metric_spaces()[metric], train)
    candidates = build_candidates(metric, base_sources[metric], space, root, pool)
    held = {t.id for t in pool}
    tests = [t for t in search_order(train, space.search.seed) if t.id not in held]
    by_name = {c.name: c for c in candidates}
    folders = {
        c.name: write_prompt_folder(out / "search" / metric / c.name, {**base_sources, metric: c.source})
        for c in candidates
    }

    def evaluate(names: Sequence[str], n: int) -> list[Score] | None:
        progress(f"{metric}: {len(names)} candidate(s) on {n} train tests")
        before = runner.ledger.needed
        scores = []
        try:
            for name in names:
                run = runner.run(folders[name], tests[:n])
                sources = {**base_sources, metric: by_name[name].source}
                scores.append(score(name, run, [metric], sources, by_name[name].order))
        except BudgetStop:
            return None
        budget.learn(runner.ledger.needed - before, len(names), n - done[0])
        done[0] = n
        return scores

    done = [0]  # tests the last finished round used
    halving = halve([c.name for c in candidates], len(tests), space.search.first_round_tests, evaluate, budget.check)
    check_chosen(metric, halving)
    return MetricSearch(metric, candidates, [t.id for t in pool], len(tests), halving)


def search_decoding(
    choices: dict[str, dict[str, Any]],
    folder: Path,
    metrics: Sequence[str],
    train: Sequence[UnitTest],
    space: TuneSpace,
    runner: CandidateRunner,
    budget: Budget,
    progress: Callable[[str], None],
) -> Halving:
    """Successive halving over decoding settings with the tuned templates, scored on the tuned metrics together."""
    tests = search_order(train, space.search.seed)
    sources = {m: (folder / f"{m}.txt.jinja").read_text(encoding="utf-8") for m in GROUSE_METRICS}
    names = list(choices)
    budget.rate = 4.0  # a new setting changes every call of a test

    def evaluate(chosen: Sequence[str], n: int) -> list[Score] | None:
        progress(f"decoding: {len(chosen)} setting(s) on {n} train tests")
        scores = []
        try:
            for name in chosen:
                run = runner.run(folder, tests[:n], overrides=choices[name], tag=tag_of(name, choices))
                scores.append(score(name, run, metrics, sources, names.index(name)))
        except BudgetStop:
            return None
        return scores

    halving = halve(names, len(tests), space.search.first_round_tests, evaluate, budget.check)
    check_chosen("decoding", halving)
    return halving
