"""`tune` end to end: the base and the candidates on train, the choice, the tuned folder, then one run on test."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.api import load_tests
from judges.calls.allowance import call_allowance
from judges.config.judge import JudgeConfig
from judges.errors import BudgetExhausted, ConfigError, InputError
from judges.files.shipped import SHIPPED_TESTS, bundled_dir
from judges.judging.prompts import load_prompt_set
from judges.runs.run import Run
from judges.tuning.runner import BudgetStop, CandidateRunner, Ledger, check_base, write_prompt_folder
from judges.tuning.search import Halving
from judges.tuning.space import TuneSpace, load_space
from judges.tuning.stages import Budget, MetricSearch, decoding_choices, search_decoding, search_metric, tag_of
from judges.types import GROUSE_METRICS, UnitTest


@dataclass
class TuneJob:
    """What the user asked for: the judge (its options name the base prompt folder and the cache), the unit-test
    folder (train.jsonl and test.jsonl), the space, the metrics, one budget, and where everything goes."""

    options: JudgeConfig
    out: Path
    tests: Path | None = None
    space: Path | None = None
    metrics: Sequence[str] | None = None
    budget_calls: int | None = None
    max_cost: float | None = None
    test_limit: int | None = None
    progress: Callable[[str], None] = lambda message: None


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

    folder = Path(tests) if tests is not None else bundled_dir(SHIPPED_TESTS)
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


def tune(job: TuneJob) -> TuneOutcome:
    """Search on train, write the tuned folder, then run the base and the tuned folder once on test."""

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
    check_affordable(budget_calls, train)
    choices = decoding_choices(space, job.options)
    decoding = None
    chosen_decoding = "as given"
    with call_allowance(budget_calls):  # the search (base run, rounds) never sends a call past the budget
        base_folder, base_train = _base_on_train(job, runner, base_sources, train, budget_calls)
        runs = {"base-train": base_train}
        searches = []
        tuned = dict(base_sources)
        for metric in metrics:
            search = search_metric(metric, space, root, train, base_sources, runner, budget, out, job.progress)
            searches.append(search)
            tuned[metric] = search.winner.source
        tuned_folder = write_prompt_folder(out / "prompts", tuned)
        load_prompt_set(str(tuned_folder))  # the written folder is a normal, loadable prompt folder
        if len(choices) > 1:
            decoding = search_decoding(choices, tuned_folder, metrics, train, space, runner, budget, job.progress)
            chosen_decoding = decoding.winner or "as given"
    overrides = choices[chosen_decoding]

    job.progress("tuned prompts on the train split")

    def tuned_train() -> Run:
        return runner.run(
            tuned_folder,
            train,
            overrides=overrides,
            tag=tag_of(chosen_decoding, choices),
            out=out / "runs" / "tuned-train",
        )

    try:
        runs["tuned-train"] = tuned_train()
    except BudgetStop:
        runner.max_cost = None  # the choice is made; the tuned folder's train figures are part of the report
        runs["tuned-train"] = tuned_train()

    # Only now, with every choice made and written, is the test split read: once, for the report.
    test_file = folder / "test.jsonl"
    report_ledger = _on_test(
        job, folder, (base_folder, tuned_folder), overrides, tag_of(chosen_decoding, choices), runs
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


def check_affordable(budget_calls: int | None, train: list[UnitTest]) -> None:
    """Before any call: a call budget below what the base run on train needs at least (3 calls a test: relevancy,
    completeness, then faithfulness or usefulness) cannot pay for the search's reference."""
    if budget_calls is not None and budget_calls < 3 * len(train):
        raise ConfigError(
            f"--budget-calls {budget_calls} cannot pay for the base run on train alone: its {len(train)} tests need at "
            f"least {3 * len(train)} calls (3 a test); give a larger budget or fewer train tests. Nothing was called"
        )


def _base_on_train(
    job: TuneJob, runner: CandidateRunner, base_sources: dict[str, str], train: list[UnitTest], budget_calls: int | None
) -> tuple[Path, Run]:
    """The base prompt folder, written, and its run on train; the budget must leave room beyond it."""
    out = job.out
    job.progress(f"base prompts on the {len(train)} train tests")
    base_folder = write_prompt_folder(out / "search" / "base", base_sources)
    try:
        run = runner.run(base_folder, train, out=out / "runs" / "base-train")
    except BudgetStop as err:
        if budget_calls is not None:
            raise ConfigError(
                f"--budget-calls {budget_calls} is spent by the base run on train alone ({err}); nothing was chosen"
            ) from None
        raise BudgetExhausted(
            f"--max-cost {job.max_cost:g} USD is spent by the base run on train alone ({err}); nothing was chosen"
        ) from None
    check_base(run)
    ledger = runner.ledger
    if budget_calls is not None and ledger.needed > budget_calls:
        raise ConfigError(
            f"--budget-calls {budget_calls} is spent by the base run on train alone ({ledger.needed} calls)"
        )
    return base_folder, run


def _on_test(
    job: TuneJob,
    folder: Path,
    prompt_folders: tuple[Path, Path],
    overrides: dict[str, Any],
    tag: str,
    runs: dict[str, Run],
) -> Ledger:
    """The base and tuned prompt folders run once each on the test split (into `runs`); the ledger of those runs."""
    base_folder, tuned_folder = prompt_folders
    out = job.out
    test = load_tests(folder, "test", job.test_limit)
    report_ledger = Ledger()
    reporter = CandidateRunner(job.options, report_ledger, None, "test")
    job.progress(f"base and tuned prompts, once each, on {len(test)} test-split tests")
    runs["base-test"] = reporter.run(base_folder, test, out=out / "runs" / "base-test")
    runs["tuned-test"] = reporter.run(tuned_folder, test, overrides=overrides, tag=tag, out=out / "runs" / "tuned-test")
    return report_ledger
