"""`tune --dry-run`: the calls and cost the search and the test-split report would need; nothing is called."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judges.api import load_tests
from judges.judging.factory import planning_judge
from judges.runs.cost_estimate import estimate_meta_eval
from judges.tuning.candidates import build_candidates, example_pool
from judges.tuning.pipeline import TuneJob, chosen_metrics, split_folder
from judges.tuning.search import schedule
from judges.tuning.space import load_space
from judges.tuning.stages import decoding_choices


@dataclass
class TunePlan:
    lines: list[str]
    search_calls_max: int
    report_calls_max: int
    cost_per_call: float | None

    def describe(self) -> str:
        cost = (
            "unknown (no price for this model)"
            if self.cost_per_call is None
            else f"about ${self.search_calls_max * self.cost_per_call:.4f} for the search, "
            f"${self.report_calls_max * self.cost_per_call:.4f} for the test-split runs"
        )
        return "\n".join(
            [
                *self.lines,
                f"at most about {self.search_calls_max} calls for the search and {self.report_calls_max} for the "
                f"test-split runs (fewer once cached); cost {cost}. Nothing was called.",
            ]
        )


def plan_tune(job: TuneJob) -> TunePlan:
    """The search's schedule per metric and its calls: every candidate-test pair one call of that metric (the base
    candidate's are the base run's), the base and tuned runs on train, and the two test-split runs."""

    space, root = load_space(job.space)
    metrics = chosen_metrics(space, job.metrics)
    folder = split_folder(job.tests)
    train = load_tests(folder, "train")
    judge, cache = planning_judge(job.options)
    try:
        base = estimate_meta_eval(train, judge, 1, cache)
    finally:
        if cache is not None:
            cache.close()
    base_sources = {m: t.source for m, t in judge.prompts.templates.items()}
    lines = [f"tune {', '.join(metrics)} with {job.options.model} on {len(train)} train tests"]
    search_calls = base.calls_max
    lines.append(f"base on train: {base.calls_text()}")
    for metric in metrics:
        pool = example_pool(metric, space.metric_spaces()[metric], train)
        candidates = build_candidates(metric, base_sources[metric], space, root, pool)
        n_tests = len(train) - len(pool)
        rounds = schedule(len(candidates), n_tests, space.search.first_round_tests)
        calls, done = 0, 0
        for alive, tests in rounds:
            calls += (alive - 1 if done == 0 else alive) * (tests - done)  # the base's first tests are the base run's
            done = tests
        search_calls += calls
        shown = ", ".join(f"{alive} x {tests}" for alive, tests in rounds)
        lines.append(
            f"{metric}: {len(candidates)} candidates, rounds (candidates x tests) {shown}: about {calls} calls"
        )
    choices = decoding_choices(space, job.options)
    if len(choices) > 1:
        rounds = schedule(len(choices), len(train), space.search.first_round_tests)
        calls = 4 * sum(alive * tests for alive, tests in rounds)
        search_calls += calls
        lines.append(f"decoding: {len(choices)} settings: at most {calls} calls")
    tuned_train = len(train) * len(metrics)
    search_calls += tuned_train
    lines.append(f"tuned prompts on train: at most {tuned_train} new calls")
    budget = None if job.max_cost is not None else (job.budget_calls or space.search.budget_calls)
    if budget is not None and search_calls > budget:
        lines.append(f"--budget-calls {budget} is below this: the search will stop early and choose from fewer rounds")
    n_test = _count_lines(folder / "test.jsonl", job.test_limit)
    report_calls = n_test * 4 + n_test * len(metrics)
    lines.append(f"test split: {n_test} tests, base and tuned once each: at most {report_calls} calls")
    per_call = None if base.cost_max is None or not base.calls_max else _per_call(base)
    return TunePlan(lines, search_calls, report_calls, per_call)


def _per_call(estimate: Any) -> float:
    return float(estimate.cost_expected or 0.0) / max(estimate.calls_max, 1)


def _count_lines(path: Any, limit: int | None) -> int:
    """How many tests the report would run: non-empty lines counted, nothing parsed or shown."""
    with open(path, encoding="utf-8") as handle:
        count = sum(1 for line in handle if line.strip())
    return min(count, limit) if limit else count
