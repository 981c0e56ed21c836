"""Opens the executor `--executor` names for a run (`judgelab.executors`): batch (the provider's batch API), ray, or
one another package registers; `local` is none (the run makes its calls itself). Nothing of an executor is imported
until one is chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judges.calls.model_spec import JudgeModel
from judges.calls.runtime import RuntimeSettings
from judges.errors import ConfigError
from judges.executors.settle import Executor
from judges.plugins import load, make, wrong_type

if TYPE_CHECKING:
    from judges.config.judge import JudgeConfig


def open_executor(config: JudgeConfig, model: JudgeModel, settings: RuntimeSettings) -> Executor | None:
    """The run's executor, made by the registered opener `(config, model, settings) -> Executor`; None for local."""
    if config.executor == "local":
        return None
    if config.cache_mode != "read-write":
        raise ConfigError(f"--executor {config.executor} needs --cache-mode read-write: replies come back through it")
    opener = load("executors", config.executor, what="executor")
    executor = make("executors", config.executor, opener, config, model, settings)
    if not isinstance(executor, Executor):
        raise wrong_type("executors", config.executor, executor, "an Executor (judges.executors.settle)", "returns")
    return executor
