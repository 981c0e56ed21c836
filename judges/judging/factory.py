"""Builds a ready judge (model, backend, runtime, cache, prompts) from a JudgeConfig, for the commands to share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from judges.calls.backend_factory import open_backend
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.endpoint_auth import cache_endpoint, endpoint_name
from judges.calls.model_spec import JudgeModel
from judges.calls.prices import entry
from judges.calls.refusing import dry_run_backend
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.config.judge import JudgeConfig
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import PromptSet, load_prompt_set


@dataclass
class JudgeSession:
    judge: GroundedQAJudge
    model: JudgeModel
    prompts: PromptSet
    runtime: CallRuntime


@contextlib.contextmanager
def open_runtime(config: JudgeConfig) -> Iterator[tuple[JudgeModel, CallRuntime]]:
    """Start the backend (and the local server when needed) with its cache, yield, clean up."""
    bases = config.api_bases()
    model = config.judge_model()
    cache = ReplyCache(config.cache, CacheMode.parse(config.cache_mode), cache_endpoint(bases))
    if config.max_cost is not None:
        warn_unpriced(model)
    per_deployment = min(config.concurrency, model.max_parallel_calls or config.concurrency)
    concurrency = per_deployment * max(1, len(bases))  # --concurrency is per deployment
    settings = RuntimeSettings(
        concurrency=concurrency,
        timeout_s=config.timeout_s,
        max_attempts=config.max_attempts,
        requests_per_minute=config.rpm,
        tokens_per_minute=config.tpm,
        max_cost=config.max_cost,
        endpoint=endpoint_name(bases, model.local),
        early_timeout_stops=not model.local,
    )
    try:
        with open_backend(
            model,
            timeout_s=config.timeout_s,
            connection=config.connection_extra(),
            client=config.client,
            api_bases=bases,
            per_deployment=per_deployment,
            replay=cache.mode is CacheMode.REPLAY,
        ) as backend:
            yield model, CallRuntime(backend, cache, settings, metered=True)
    finally:
        cache.close()


def warn_unpriced(model: JudgeModel) -> None:
    """One stderr line when --max-cost cannot act: every call of a model with no known price counts as $0."""
    import sys

    priced = entry(model.litellm_model) or entry(model.name)
    if model.local or not priced or not ("input_cost_per_token" in priced or "output_cost_per_token" in priced):
        print(
            f"judgelab: warning: --max-cost cannot stop this run: no price is known for {model.name}, so its "
            "calls count as $0",
            file=sys.stderr,
        )


@contextlib.contextmanager
def open_judge(config: JudgeConfig, prompts: PromptSet | None = None) -> Iterator[JudgeSession]:
    """A GroUSE judge (four metric prompts) on the shared runtime; prompts load before anything starts."""
    prompts = prompts or load_prompt_set(config.prompts)
    with open_runtime(config) as (model, runtime):
        yield JudgeSession(GroundedQAJudge(runtime, prompts, model, config.params()), model, prompts, runtime)


def planning_judge(config: JudgeConfig) -> tuple[GroundedQAJudge, ReplyCache | None]:
    """A judge that can render and build requests but never calls, and the existing cache (read-only), if any."""
    prompts = load_prompt_set(config.prompts)
    model = config.judge_model()
    cache_file = Path(config.cache)
    endpoint = cache_endpoint(config.api_bases())
    cache = ReplyCache(cache_file, CacheMode.READ_ONLY, endpoint) if cache_file.is_file() else None
    return GroundedQAJudge(CallRuntime(dry_run_backend()), prompts, model, config.params()), cache
