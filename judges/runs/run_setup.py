"""The one run setup every judge run goes through: check, open the judge, build the run config once, run the task."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import CallRuntime
from judges.config.judge import JudgeConfig
from judges.executors.choose import open_executor
from judges.images.vision import check_can_see
from judges.judging.factory import JudgeSession, open_judge
from judges.judging.prompts import PromptSet
from judges.runs.run import Run
from judges.runs.run_config import RunConfig
from judges.runs.run_writer import Recorder
from judges.runs.service import run_task
from judges.runs.task_protocol import Task
from judges.types import Sample


class OpenJudge(Protocol):
    """What a run needs of an opened judge: its model, its call runtime, the prompt set the config records."""

    @property
    def model(self) -> JudgeModel: ...

    @property
    def runtime(self) -> CallRuntime: ...

    @property
    def prompts(self) -> PromptSet | None: ...


Opened = TypeVar("Opened", bound=OpenJudge)


def run_judged(
    options: JudgeConfig,
    seen: Iterable[Sample],
    make_task: Callable[[Opened], Task],
    details: Callable[[Opened], Mapping[str, Any]],
    opener: Callable[[], AbstractContextManager[Opened]],
    *,
    recorder: Recorder | None = None,
    progress: bool = False,
    calls: bool = True,
) -> Run:
    """Check the judge can see the `seen` samples (before anything starts), open the judge with `opener`, make the
    kind's task, build the run config once (the kind's `details` after the common keys), open the executor (when
    the run makes `calls`), and run the task into the caller's `recorder` (none: the run is only returned)."""
    check_can_see(options.judge_model(), seen)
    with opener() as opened:
        task = make_task(opened)
        config = RunConfig.of(options, opened.prompts, opened.model, details(opened))
        executor = open_executor(options, opened.model, opened.runtime.settings) if calls else None
        return run_task(task, opened.runtime, recorder, config, progress=progress, executor=executor)


def judge_opener(options: JudgeConfig, prompts: PromptSet) -> Callable[[], AbstractContextManager[JudgeSession]]:
    """The opener of a GroUSE judge with `prompts` (unit tests, grading, probes)."""
    return lambda: open_judge(options, prompts)
