"""Runs a judge over unit tests: verdicts, outcomes per metric (with PA/NR), one JSONL line per test as it ends."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from judges.suite.conditions import Condition, expected_pa_nr, judged_pa_nr
from judges.errors import BudgetExhausted
from judges.judging.grouse_judge import GroundedQAJudge, MetricRecord
from judges.jsonl import append_jsonl
from judges.types import ALL_METRICS, Outcome, UnitTest, Verdict


@dataclass
class TestResult:
    """One unit test's verdicts, conditions and outcomes over the six metrics."""

    test: UnitTest
    records: dict[str, MetricRecord]
    verdicts: dict[str, Verdict]
    conditions: dict[str, Condition]
    outcomes: dict[str, Outcome]
    draw: int = 0

    def to_dict(self) -> dict[str, Any]:
        metrics = {}
        for metric in ALL_METRICS:
            entry: dict[str, Any] = {"condition": str(self.conditions[metric]), "outcome": self.outcomes[metric].value,
                                     "verdict": self.verdicts[metric].to_dict()}
            if metric in self.records:
                entry.update({k: v for k, v in self.records[metric].to_dict().items() if k != "verdict"})
            metrics[metric] = entry
        return {"id": self.test.id, "draw": self.draw, "test_type": self.test.test_type, "set_id": self.test.set_id,
                "source": self.test.source, "passed_all": all(o is Outcome.PASS for o in self.outcomes.values()),
                "metrics": metrics}


def score_unit_test(test: UnitTest, records: dict[str, MetricRecord]) -> TestResult:
    """Check each verdict against its condition, deriving PA and NR on both sides."""
    verdicts = {metric: record.verdict for metric, record in records.items()}
    verdicts["positive_acceptance"], verdicts["negative_rejection"] = judged_pa_nr(
        verdicts["answer_relevancy"], verdicts["completeness"])
    conditions = dict(test.conditions)
    conditions["positive_acceptance"], conditions["negative_rejection"] = expected_pa_nr(
        test.conditions["answer_relevancy"], test.conditions["completeness"])
    outcomes = {metric: conditions[metric].check(verdicts[metric]) for metric in ALL_METRICS}
    return TestResult(test, records, verdicts, conditions, outcomes)


@dataclass
class MetaEvalRun:
    """The results in test order (draw by draw), and why the run stopped early, if it did."""

    results: list[TestResult]
    stopped: str | None = None


async def run_meta_eval(tests: list[UnitTest], judge: GroundedQAJudge, results_path: Path,
                        on_done: Callable[[TestResult], None] | None = None, draws: int = 1) -> MetaEvalRun:
    """Judge every test `draws` times; each finished test is appended to `results_path` at once.

    A BudgetExhausted stops new tests cleanly: every test that finished is kept, and `stopped` says why.
    """
    for test in tests:  # every template renders for every test before any call is made
        judge.render_all(test.sample)
    # Bounded, so tests finish (and are written) steadily rather than all at the end.
    in_flight = asyncio.Semaphore(judge.runtime.items_in_flight(4))
    stopped: list[str] = []

    async def one(test: UnitTest, draw: int, order: int) -> TestResult | None:
        async with in_flight:
            if stopped:
                return None
            try:
                result = score_unit_test(test, await judge.judge(test.sample, draw, priority=order))
            except BudgetExhausted as err:
                stopped.append(str(err))
                return None
            result.draw = draw
            return result

    finished_results: dict[tuple[str, int], TestResult] = {}
    results_path.parent.mkdir(parents=True, exist_ok=True)
    with results_path.open("w", encoding="utf-8") as handle:
        jobs = [asyncio.ensure_future(one(test, draw, order)) for order, (draw, test) in  # started in order
                enumerate((draw, test) for draw in range(draws) for test in tests)]
        for finished in asyncio.as_completed(jobs):
            result = await finished
            if result is None:
                continue
            append_jsonl(handle, result.to_dict())
            finished_results[(result.test.id, result.draw)] = result
            if on_done is not None:
                on_done(result)
    ordered = [finished_results[key] for draw in range(draws) for test in tests
               if (key := (test.id, draw)) in finished_results]
    return MetaEvalRun(ordered, stopped[0] if stopped else None)
