"""Builds a ready judge (model, backend, runtime, cache, prompts) from options, for the commands to share."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.model_spec import (
    DEFAULT_JUDGE,
    IMAGE_MAX_SIDE,
    JudgeModel,
    default_prompt_set,
    judge_params,
    open_backend,
)
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.secrets import credential_paths, split_credentials
from judges.errors import ConfigError
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.prompts import PromptSet, load_prompt_set


@dataclass
class JudgeOptions:
    """What the user chose for the judge and its runtime."""

    judge: str = DEFAULT_JUDGE
    prompts: str = ""  # a prompt folder or shipped set; "" for the judge's own (model_spec.default_prompt_set)
    api_base: str | list[str] | None = None  # several: deployments of one judge, calls spread over them
    client: str | None = None  # "lean" or "litellm"; default: lean for OpenAI-compatible endpoints and local judges
    temperature: float | None = 0.0
    max_tokens: int | None = 512
    seed: int | None = 0
    extra: dict[str, Any] = field(default_factory=dict)
    json_schema: bool | None = None
    concurrency: int = 8
    timeout_s: float = 120.0
    cache_path: str = ".judgelab/cache.sqlite"
    cache_mode: str = "read-write"
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_cost: float | None = None
    vision: bool | None = None  # the judge sees images (default: LiteLLM's model table; local judges never)
    image_max_side: int = IMAGE_MAX_SIDE  # pixels; larger images are shrunk before they are sent
    # a finished run whose share of failed verdicts in any metric is over this is "degraded" (exit 5, Inspect's
    # --fail-on-error); None: never (the library's default; the CLI's --fail-on-error defaults to 0.1)
    fail_on_error: float | None = None

    def __post_init__(self) -> None:
        if not self.prompts:
            self.prompts = default_prompt_set(self.judge)

    def judge_model(self) -> JudgeModel:
        """The judge model these options name, with its capabilities."""
        bases = self.api_bases()
        return JudgeModel.from_name(
            self.judge,
            api_base=bases[0] if bases else None,
            json_schema=self.json_schema,
            vision=self.vision,
            image_max_side=self.image_max_side,
        )

    def api_bases(self) -> list[str]:
        """Every --api-base given, in order (none: the provider's own endpoint)."""
        if self.api_base is None:
            return []
        return [self.api_base] if isinstance(self.api_base, str) else list(self.api_base)

    def check(self) -> None:
        """Reject values no run can use, before anything starts."""
        if self.client not in (None, "lean", "litellm"):
            raise ConfigError(f"--client must be lean or litellm, got {self.client!r}")
        if self.api_base is not None and not self.api_bases():
            raise ConfigError("--api-base needs a URL")
        if self.concurrency < 1:
            raise ConfigError("--concurrency must be at least 1")
        if self.max_cost is not None and not self.max_cost > 0:
            raise ConfigError(f"--max-cost must be a positive number of USD, got {self.max_cost:g}")
        if self.image_max_side < 16:
            raise ConfigError(f"--image-max-side must be at least 16 pixels, got {self.image_max_side}")
        if not self.timeout_s > 0:
            raise ConfigError(f"--timeout must be a positive number of seconds, got {self.timeout_s:g}")
        if self.fail_on_error is not None and not 0 <= self.fail_on_error <= 1:
            raise ConfigError(f"--fail-on-error must be a share between 0 and 1, got {self.fail_on_error:g}")
        for name, value in (("--rpm", self.requests_per_minute), ("--tpm", self.tokens_per_minute)):
            if value is not None and not value > 0:
                raise ConfigError(f"{name} must be positive, got {value:g}")

    @staticmethod
    def parse_extra(text: str | None) -> dict[str, Any]:
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise ConfigError(f"--extra must be a JSON object: {err.msg}") from None
        if not isinstance(value, dict):
            raise ConfigError("--extra must be a JSON object, e.g. '{\"top_p\": 0.9}'")
        return value

    def generation_extra(self) -> dict[str, Any]:
        """Extra arguments that shape the reply (part of the cache key and the reports): credential fields at any
        depth (`api_key`, `extra_body.api_key`, `metadata.token`, `extra_headers`) are split out."""
        return split_credentials(self.extra)[0]

    def connection_extra(self) -> dict[str, Any]:
        """The credential fields of the extras, nested as given: sent with each call, never hashed, stored or logged."""
        return split_credentials(self.extra)[1] or {}

    def params(self) -> dict[str, Any]:
        return judge_params(self.temperature, self.max_tokens, self.seed, self.generation_extra())

    def public_params(self) -> dict[str, Any]:
        """Parameters as recorded in reports; credential-like extras are named but never shown."""
        hidden = credential_paths(self.extra)
        return {**self.params(), **({"credentials": hidden} if hidden else {})}


@dataclass
class JudgeSession:
    judge: GroundedQAJudge
    model: JudgeModel
    prompts: PromptSet
    runtime: CallRuntime


@contextlib.contextmanager
def open_runtime(options: JudgeOptions) -> Iterator[tuple[JudgeModel, CallRuntime]]:
    """Check options, start the backend (and the local server when needed) with its cache, yield, clean up."""
    options.check()
    bases = options.api_bases()
    model = options.judge_model()
    cache = ReplyCache(options.cache_path, CacheMode.parse(options.cache_mode))
    if options.max_cost is not None:
        warn_unpriced(model)
    per_deployment = min(options.concurrency, model.max_parallel_calls or options.concurrency)
    concurrency = per_deployment * max(1, len(bases))  # --concurrency is per deployment
    settings = RuntimeSettings(
        concurrency=concurrency,
        timeout_s=options.timeout_s,
        requests_per_minute=options.requests_per_minute,
        tokens_per_minute=options.tokens_per_minute,
        max_cost=options.max_cost,
        endpoint=", ".join(bases) or ("a local llama.cpp server" if model.local else "the provider's API"),
        early_timeout_stops=not model.local,
    )
    try:
        with open_backend(
            model,
            timeout_s=options.timeout_s,
            connection=options.connection_extra(),
            client=options.client,
            api_bases=bases,
            per_deployment=per_deployment,
        ) as backend:
            yield model, CallRuntime(backend, cache, settings)
    finally:
        cache.close()


def warn_unpriced(model: JudgeModel) -> None:
    """One stderr line when --max-cost cannot act: every call of a model with no known price counts as $0."""
    import sys

    from judges.calls.prices import entry

    priced = entry(model.litellm_model) or entry(model.name)
    if model.local or not priced or not ("input_cost_per_token" in priced or "output_cost_per_token" in priced):
        print(
            f"judgelab: warning: --max-cost cannot stop this run: no price is known for {model.name}, so its "
            "calls count as $0",
            file=sys.stderr,
        )


@contextlib.contextmanager
def open_judge(options: JudgeOptions, prompts: PromptSet | None = None) -> Iterator[JudgeSession]:
    """A GroUSE judge (four metric prompts) on the shared runtime; prompts load before anything starts."""
    prompts = prompts or load_prompt_set(options.prompts)
    with open_runtime(options) as (model, runtime):
        yield JudgeSession(GroundedQAJudge(runtime, prompts, model, options.params()), model, prompts, runtime)


class DryRunBackend:
    """The backend of a dry run: any call is a bug, since a dry run must spend nothing."""

    async def complete(self, request: Any) -> Any:
        raise AssertionError("a dry run made a call")


def planning_judge(options: JudgeOptions) -> tuple[GroundedQAJudge, ReplyCache | None]:
    """A judge that can render and build requests but never calls, and the existing cache (read-only), if any."""
    prompts = load_prompt_set(options.prompts)
    model = options.judge_model()
    cache_file = Path(options.cache_path)
    cache = ReplyCache(cache_file, CacheMode.READ_ONLY) if cache_file.is_file() else None
    return GroundedQAJudge(CallRuntime(DryRunBackend()), prompts, model, options.params()), cache
