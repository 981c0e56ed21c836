"""Reference judges for measuring a unit-test suite's discrimination: the oracle and constant/random baselines.

Each is a ScriptedBackend behind the real GroundedQAJudge, so the pipeline's null rules apply as for a model.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from judges.calls.backend import CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.content_views import content_text
from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime
from judges.calls.scripted import ScriptedBackend
from judges.images.image_parts import to_content
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import PromptSet, load_prompt_set
from judges.judging.replies import GRADE_SPECS
from judges.pages.markdown import grid, pct
from judges.runs.run_writer import Recorder
from judges.runs.service import run_task
from judges.runs.summarizer import SHORT
from judges.suite.constant_grades import CONSTANT_GRADES
from judges.suite.test_types import BY_NAME
from judges.suite.unit_test_task import UnitTestTask
from judges.types import GROUSE_METRICS, UnitTest

if TYPE_CHECKING:
    from judges.runs.run import Run

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
    """The reference judges' grades by metric and unit test. The random one draws from a generator seeded by the seed,
    the test's id and the metric, so its grades do not depend on the order the run happens to make its calls in."""

    def drawn(metric: str, test: UnitTest | None) -> Grade:
        rng = random.Random(f"{seed}:{test.id if test is not None else ''}:{metric}")
        return rng.choice([*GRADE_SPECS[metric][1], None])

    def constant(name: str) -> GradeFn:
        return lambda metric, _t: CONSTANT_GRADES[name][metric]

    return {"oracle": _oracle, **{name: constant(name) for name in CONSTANT_GRADES}, "random": drawn}


def run_baseline(
    name: str,
    tests: list[UnitTest],
    prompts: PromptSet | str = "default",
    seed: int = 0,
    recorder: Recorder | None = None,
    data: str | None = None,
    split: str | None = None,
) -> Run:
    """Judge `tests` with the named reference judge through the run service, scored like any model run (and
    written through `recorder`, like any run)."""

    prompts = load_prompt_set(prompts) if isinstance(prompts, str) else prompts
    grade_fn = baseline_grade_fns(seed)[name]
    by_prompt: dict[str, UnitTest] = {}
    for test in tests:
        for metric in GROUSE_METRICS:
            by_prompt[content_text(to_content(prompts.render(metric, test.sample)))] = test

    def script(request: CompletionRequest) -> str:
        metric = str(request.metric)
        return _reply(metric, grade_fn(metric, by_prompt.get(content_text(request.messages[0]["content"]))))

    runtime = CallRuntime(ScriptedBackend(script), ReplyCache(":memory:", CacheMode.OFF))
    judge = GroundedQAJudge(runtime, prompts, JudgeModel(f"baseline/{name}", f"baseline/{name}", vision=True))
    config = {
        "judge": f"baseline/{name}",
        "prompts": {"name": prompts.name, "folder": str(prompts.folder), "sha256": prompts.hashes()},
        "n_tests": len(tests),
        "data": data,
        "split": split,
    }
    return run_task(UnitTestTask(tests, judge), runtime, recorder, config)


def discrimination(
    tests: list[UnitTest], prompts: PromptSet, seed: int = 0, names: Sequence[str] | None = None
) -> dict[str, dict[str, float | None]]:
    """Pass rate per metric (and total) of every reference judge (or those named) on `tests`."""
    table = {}
    for name in names if names is not None else list(baseline_grade_fns(seed)):
        summary = run_baseline(name, tests, prompts, seed).summary
        table[name] = {metric: stats.pass_rate for metric, stats in summary.metrics.items()}
        table[name]["total"] = summary.total_pass_rate
    return table


def discrimination_markdown(table: dict[str, dict[str, float | None]]) -> str:
    columns = [*SHORT, "total"]
    rows = [[name, *(pct(row[c]) for c in columns)] for name, row in table.items()]
    return grid(["judge", *(SHORT.get(c, c) for c in columns)], rows)


def reference_rates(tests: Sequence[UnitTest], seed: int = 0) -> dict[str, dict[str, float | None]]:
    """What every run of unit tests keeps beside the judge (run.json's config "baselines"): the pass rates per metric
    and total of the constant judges and the oracle on `tests`; the oracle only when every test is of one of
    judgelab's test types (it knows their right grades, not a user's own)."""

    names = [*CONSTANT_GRADES, *(["oracle"] if all(t.test_type in BY_NAME for t in tests) else [])]
    return discrimination(list(tests), load_prompt_set("default"), seed, names)
