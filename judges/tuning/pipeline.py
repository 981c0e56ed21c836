"""`tune` end to end: the base and the candidates on train, the choice, the tuned folder, then one run on test."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import BudgetExhausted, ConfigError, InputError
from judges.judging.factory import JudgeOptions
from judges.runs.run import Run
from judges.tuning.candidates import Candidate, build_candidates, example_pool
from judges.tuning.runner import BudgetStop, CandidateRunner, Ledger, score, write_prompt_folder
from judges.tuning.search import Halving, Score, halve
from judges.tuning.space import TuneSpace, load_space
from judges.types import GROUSE_METRICS, UnitTest


@dataclass
class TuneJob:
    """What the user asked for: the judge (its options name the base prompt folder and the cache), the unit-test
    folder (train.jsonl and test.jsonl), the space, the metrics, one budget, and where everything goes."""

    options: JudgeOptions
    out: Path
    tests: Path | None = None
    space: Path | None = None
    metrics: Sequence[str] | None = None
    budget_calls: int | None = None
    max_cost: float | None = None
    test_limit: int | None = None
    progress: Callable[[str], None] = lambda message: None


@dataclass
class MetricSearch:
    metric: str
    candidates: list[Candidate]
    examples: list[str]
    eval_tests: int
    halving: Halving

    @property
    def winner(self) -> Candidate:
        chosen = self.halving.winner
        return next((c for c in self.candidates if c.name == chosen), self.candidates[0])


@dataclass
class TuneOutcome:
    """Everything the report shows."""

    space: TuneSpace
    metrics: list[str]
    searches: list[MetricSearch]
    decoding: Halving | None
    decoding_choices: dict[str, dict[str, Any]]
    chosen_decoding: str
    runs: dict[str, Run]
    search_ledger: Ledger
    report_ledger: Ledger
    test_file: Path
    test_sha256: str
    tuned_folder: Path
    budget: dict[str, Any] = field(default_factory=dict)
    base_prompts: str = "default"


def split_folder(tests: Path | None) -> Path:
    """The unit-test folder holding both splits (default: the shipped suite)."""
    from judges.files.shipped import bundled_dir

    folder = Path(tests) if tests is not None else bundled_dir("unit_tests")
    if not folder.is_dir() or not (folder / "train.jsonl").is_file() or not (folder / "test.jsonl").is_file():
        raise InputError("tune needs a folder holding train.jsonl and test.jsonl", path=str(folder))
    return folder


def chosen_metrics(space: TuneSpace, asked: Sequence[str] | None) -> list[str]:
    available = space.metric_spaces()
    names = list(asked) if asked else list(available)
    for name in names:
        if name not in GROUSE_METRICS:
            raise ConfigError(f"--metrics: unknown metric {name!r}; tune works on {', '.join(GROUSE_METRICS)}")
        if name not in available:
            raise ConfigError(f"--metrics: the space has no [metrics.{name}] table")
    return [m for m in GROUSE_METRICS if m in names]


def search_order(tests: Sequence[UnitTest], seed: int) -> list[UnitTest]:
    """The train tests in a seeded shuffled order, so a round's first few tests mix the test types."""
    order = list(tests)
    random.Random(seed).shuffle(order)
    return order


def decoding_choices(space: TuneSpace, options: JudgeOptions) -> dict[str, dict[str, Any]]:
    """Name -> overrides, the judge's own settings first."""
    temperatures: list[float | None] = (
        [*space.decoding.temperature] if space.decoding.temperature else [options.temperature]
    )
    schemas: list[bool | None] = [*space.decoding.json_schema] if space.decoding.json_schema else [options.json_schema]
    out: dict[str, dict[str, Any]] = {"as given": {}}
    for temperature, schema in itertools.product(temperatures, schemas):
        overrides = {}
        if temperature != options.temperature:
            overrides["temperature"] = temperature
        if schema != options.json_schema:
            overrides["json_schema"] = schema
        if overrides:
            name = ", ".join(f"{k}={v}" for k, v in overrides.items())
            out.setdefault(name, overrides)
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


def tune(job: TuneJob) -> TuneOutcome:
    """Search on train, write the tuned folder, then run the base and the tuned folder once on test."""
    from judges.judging.prompts import load_prompt_set
    from judges.runs.api import load_tests

    space, root = load_space(job.space)
    metrics = chosen_metrics(space, job.metrics)
    folder = split_folder(job.tests)
    if job.budget_calls is not None and job.max_cost is not None:
        raise ConfigError("give one budget: --budget-calls or --max-cost")
    budget_calls = None if job.max_cost is not None else (job.budget_calls or space.search.budget_calls)
    base = load_prompt_set(job.options.prompts)
    base_sources = {m: t.source for m, t in base.templates.items()}
    train = load_tests(folder, "train")
    out = job.out
    ledger = Ledger()
    runner = CandidateRunner(job.options, ledger, job.max_cost, "train")
    budget = Budget(ledger, budget_calls)

    job.progress(f"base prompts on the {len(train)} train tests")
    base_folder = write_prompt_folder(out / "search" / "base", base_sources)
    try:
        runs = {"base-train": runner.run(base_folder, train, out=out / "runs" / "base-train")}
    except BudgetStop as err:
        raise BudgetExhausted(
            f"--max-cost {job.max_cost:g} USD is spent by the base run on train alone ({err}); nothing was chosen"
        ) from None
    if budget_calls is not None and ledger.needed > budget_calls:
        raise ConfigError(
            f"--budget-calls {budget_calls} is spent by the base run on train alone ({ledger.needed} calls)"
        )

    searches = []
    tuned = dict(base_sources)
    for metric in metrics:
        search = search_metric(metric, space, root, train, base_sources, runner, budget, out, job.progress)
        searches.append(search)
        tuned[metric] = search.winner.source

    tuned_folder = write_prompt_folder(out / "prompts", tuned)
    load_prompt_set(str(tuned_folder))  # the written folder is a normal, loadable prompt folder
    choices = decoding_choices(space, job.options)
    decoding = None
    chosen_decoding = "as given"
    if len(choices) > 1:
        decoding = search_decoding(choices, tuned_folder, metrics, train, space, runner, budget, job.progress)
        chosen_decoding = decoding.winner or "as given"
    overrides = choices[chosen_decoding]

    job.progress("tuned prompts on the train split")
    try:
        runs["tuned-train"] = runner.run(
            tuned_folder,
            train,
            overrides=overrides,
            tag=tag_of(chosen_decoding, choices),
            out=out / "runs" / "tuned-train",
        )
    except BudgetStop:
        runner.max_cost = None  # the choice is made; the tuned folder's train figures are part of the report
        runs["tuned-train"] = runner.run(
            tuned_folder,
            train,
            overrides=overrides,
            tag=tag_of(chosen_decoding, choices),
            out=out / "runs" / "tuned-train",
        )

    # Only now, with every choice made and written, is the test split read: once, for the report.
    test_file = folder / "test.jsonl"
    test = load_tests(folder, "test", job.test_limit)
    report_ledger = Ledger()
    reporter = CandidateRunner(job.options, report_ledger, None, "test")
    job.progress(f"base and tuned prompts, once each, on {len(test)} test-split tests")
    runs["base-test"] = reporter.run(base_folder, test, out=out / "runs" / "base-test")
    runs["tuned-test"] = reporter.run(
        tuned_folder, test, overrides=overrides, tag=tag_of(chosen_decoding, choices), out=out / "runs" / "tuned-test"
    )
    return TuneOutcome(
        space,
        metrics,
        searches,
        decoding,
        choices,
        chosen_decoding,
        runs,
        ledger,
        report_ledger,
        test_file,
        hashlib.sha256(test_file.read_bytes()).hexdigest(),
        tuned_folder,
        {"budget_calls": budget_calls, "max_cost": job.max_cost},
        job.options.prompts,
    )


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

    return halve(names, len(tests), space.search.first_round_tests, evaluate, budget.check)
