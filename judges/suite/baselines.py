"""Reference judges for measuring a unit-test suite's discrimination: the oracle and constant/random baselines.

Each is a ScriptedBackend behind the real GroundedQAJudge, so the pipeline's null rules apply as for a model.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any, Callable

from judges.calls.backend import CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.judging.grouse_judge import GroundedQAJudge
from judges.suite.scoring import TestResult, score_unit_test
from judges.calls.model_spec import JudgeModel
from judges.judging.prompts import PromptSet
from judges.judging.replies import GRADE_SPECS
from judges.calls.runtime import CallRuntime
from judges.calls.scripted import ScriptedBackend
from judges.suite.test_types import BY_NAME
from judges.types import GROUSE_METRICS, UnitTest

Grade = float | None
GradeFn = Callable[[str, UnitTest | None], Grade]


def _reply(metric: str, grade: Grade) -> str:
    grade_field, _, flags = GRADE_SPECS[metric]
    entry: dict[str, Any] = {flag: False for flag in flags}
    entry.update({f"{metric}_justification": "baseline", grade_field: None if grade is None else int(grade)})
    return json.dumps({"answer_1": entry, "answer_2": entry})


def _oracle(metric: str, test: UnitTest | None) -> Grade:
    if test is None or test.test_type not in BY_NAME:
        raise KeyError("the oracle knows only judgelab's test types")
    return BY_NAME[test.test_type].oracle[GROUSE_METRICS.index(metric)]


def baseline_grade_fns(seed: int = 0) -> dict[str, GradeFn]:
    rng = random.Random(seed)
    top = {"answer_relevancy": 5, "completeness": 5, "faithfulness": 1, "usefulness": 1}
    return {
        "oracle": _oracle,
        "always-top": lambda metric, _t: top[metric],
        "always-lowest": lambda metric, _t: 1 if metric in ("answer_relevancy", "completeness") else 0,
        "always-null": lambda _metric, _t: None,
        "random": lambda metric, _t: rng.choice([*GRADE_SPECS[metric][1], None]),
    }


def run_baseline(name: str, tests: list[UnitTest], prompts: PromptSet, seed: int = 0) -> list[TestResult]:
    """Judge `tests` with the named reference judge and score them like any model run."""
    grade_fn = baseline_grade_fns(seed)[name]
    by_prompt: dict[str, UnitTest] = {}
    for test in tests:
        for metric in GROUSE_METRICS:
            by_prompt[prompts.render(metric, test.sample)] = test

    def script(request: CompletionRequest) -> str:
        metric = str(request.metric)
        return _reply(metric, grade_fn(metric, by_prompt.get(request.messages[0]["content"])))

    runtime = CallRuntime(ScriptedBackend(script), ReplyCache(":memory:", CacheMode.OFF))
    judge = GroundedQAJudge(runtime, prompts, JudgeModel(f"baseline/{name}", f"baseline/{name}"))

    async def go() -> list[TestResult]:
        return [score_unit_test(test, await judge.judge(test.sample)) for test in tests]

    return asyncio.run(go())


def discrimination(tests: list[UnitTest], prompts: PromptSet, seed: int = 0) -> dict[str, dict[str, float | None]]:
    """Pass rate per metric (and total) of every reference judge on `tests`."""
    from judges.runs.summary import summarize

    table = {}
    for name in baseline_grade_fns(seed):
        summary = summarize([result.to_dict() for result in run_baseline(name, tests, prompts, seed)])
        table[name] = {metric: stats["pass_rate"] for metric, stats in summary["metrics"].items()}
        table[name]["total"] = summary["total_pass_rate"]
    return table


def discrimination_markdown(table: dict[str, dict[str, float | None]]) -> str:
    from judges.runs.summary import SHORT

    columns = [*SHORT, "total"]
    lines = ["| judge | " + " | ".join(SHORT.get(c, c) for c in columns) + " |", "|---|" + "---|" * len(columns)]
    for name, row in table.items():
        cells = " | ".join("n/a" if row[c] is None else f"{100 * row[c]:.1f}%" for c in columns)  # type: ignore[operator]
        lines.append(f"| {name} | {cells} |")
    return "\n".join(lines)
