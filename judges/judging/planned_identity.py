"""The identity of the judge a config would run, as far as it is known before any call, and the model name and
`system_fingerprint` one fresh call to its endpoint answers with (a certified gate's and a cascade's check)."""

from __future__ import annotations

import asyncio

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.calls.runtime import CallRuntime
from judges.config.judge import JudgeConfig
from judges.errors import EndpointUnusable
from judges.judging.factory import open_runtime
from judges.judging.prompts import load_prompt_set
from judges.judging.requests import build_request
from judges.records.judge_identity import JudgeIdentity, config_identity

PROBE_MESSAGE = "Reply with the single word OK."
PROBE_MAX_TOKENS = 4  # the reply's text is never read: only who answered


def planned_identity(config: JudgeConfig, draws: int) -> JudgeIdentity:
    """The identity of the judge `config` would run, as far as it is known before any call."""
    model = config.judge_model()
    return config_identity(
        {
            "judge": config.model,
            "litellm_model": model.litellm_model,
            "params": config.public_params(),
            "prompts": {"sha256": load_prompt_set(config.prompts).hashes()},
            "json_schema": model.json_schema,
            "draws": draws,
        }
    )


def probe_reply(config: JudgeConfig) -> Completion:
    """One fresh call to the judge's endpoint (the cache neither read nor written, so the reply is today's): a short
    message whose reply tells the model name and fingerprint the endpoint serves now. An unusable endpoint stops
    here as a run would (exit 3)."""
    uncached = config.merged(cache_mode="off")
    with open_runtime(uncached) as (model, runtime):
        message = [{"role": "user", "content": PROBE_MESSAGE}]
        extra = {"max_tokens": PROBE_MAX_TOKENS}
        request = build_request(model, uncached.params(), "probe", message, extra_params=extra)
        return asyncio.run(answered(runtime, request))


async def answered(runtime: CallRuntime, request: CompletionRequest) -> Completion:
    """The probe's reply, the backend's connections closed in the same event loop; a call that got no reply after
    its retries is EndpointUnusable (the endpoint cannot tell who serves)."""
    try:
        return await runtime.call(request)
    except CallError as err:
        raise EndpointUnusable(
            f"judge {request.model} at {runtime.settings.endpoint}: the probe call failed: {err}"
        ) from None
    finally:
        await runtime.aclose()
