"""The built-in executors' openers (registered under `judgelab.executors`): batch and ray, each from a JudgeConfig."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.calls.backend_factory import default_client
from judges.calls.model_spec import JudgeModel
from judges.calls.openai_http import CONNECTION_ONLY, OpenAIHTTPBackend
from judges.calls.runtime import RuntimeSettings
from judges.errors import ConfigError
from judges.executors.batch import BatchExecutor
from judges.executors.batch_api import LiteLLMBatchAPI, OpenAIBatchAPI
from judges.executors.ray_exec import RayExecutor
from judges.executors.ray_worker import WorkerSpec
from judges.executors.rows import Row
from judges.executors.settle import Executor

if TYPE_CHECKING:
    from judges.config.judge import JudgeConfig


def open_ray(config: JudgeConfig, model: JudgeModel, settings: RuntimeSettings) -> Executor:
    spec = WorkerSpec.of(config, config.ray_workers)
    return RayExecutor(
        spec, address=config.ray_address, retry_failures=config.batch_retry, window=config.executor_window
    )


def open_batch(config: JudgeConfig, model: JudgeModel, settings: RuntimeSettings) -> Executor:
    if model.local:
        raise ConfigError("--executor batch needs a provider's batch API; a local judge runs with local or ray")
    bases = config.api_bases()
    if len(bases) > 1:
        raise ConfigError("--executor batch sends to one endpoint: give one --api-base")
    # headers and the key only: credential fields that would go in a request body are never written to a file
    connection = {k: v for k, v in config.connection_extra().items() if k in CONNECTION_ONLY}
    client = OpenAIHTTPBackend(api_base=bases[0] if bases else None, timeout_s=config.timeout_s, connection=connection)

    lean = (config.client or default_client(model)) == "lean"

    def body_of(row: Row) -> dict[str, Any]:
        body = client.body(row.request())
        if not lean:  # the provider's own model id, without LiteLLM's prefix
            body["model"] = row.model.split("/", 1)[-1]
        return body

    api: Any
    if lean:
        api, where = OpenAIBatchAPI(client), client.api_base
    else:
        provider = model.litellm_model.split("/", 1)[0]
        api, where = LiteLLMBatchAPI(provider, config.connection_extra(), bases[0] if bases else None), provider
    return BatchExecutor(
        api,
        body_of,
        Path(config.cache),
        max_cost=settings.max_cost,
        retry_failures=config.batch_retry,
        where=where,
        window=config.executor_window,
    )
