"""Builds a ready judge (model, backend, runtime, cache, prompts) from options, for the commands to share."""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .cache import CacheMode, ReplyCache
from .errors import ConfigError
from .judge import GroundedQAJudge
from .models import DEFAULT_JUDGE, JudgeModel, judge_params, open_backend
from .prompts import PromptSet, load_prompt_set
from .runtime import CallRuntime, RuntimeSettings

_SECRET_NAME = re.compile(r"key|token|secret|password|authorization|auth", re.I)


@dataclass
class JudgeOptions:
    """What the user chose for the judge and its runtime."""

    judge: str = DEFAULT_JUDGE
    prompts: str = "default"
    api_base: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = 512
    seed: int | None = 0
    extra: dict[str, Any] = field(default_factory=dict)
    json_schema: bool | None = None
    concurrency: int = 8
    timeout_s: float = 120.0
    cache_path: str = ".judgelab/cache.sqlite"
    cache_mode: str = "read-write"

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

    def public_params(self) -> dict[str, Any]:
        """Parameters as recorded in reports: anything that looks like a secret is redacted."""
        params = judge_params(self.temperature, self.max_tokens, self.seed, self.extra)
        if "extra" in params:
            params["extra"] = {k: ("<redacted>" if _SECRET_NAME.search(k) else v) for k, v in params["extra"].items()}
        return params


@dataclass
class JudgeSession:
    judge: GroundedQAJudge
    model: JudgeModel
    prompts: PromptSet
    runtime: CallRuntime


@contextlib.contextmanager
def open_runtime(options: JudgeOptions) -> Iterator[tuple[JudgeModel, CallRuntime]]:
    """Check options, start the backend (and the local server when needed) with its cache, yield, clean up."""
    if options.concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    model = JudgeModel.from_name(options.judge, api_base=options.api_base, json_schema=options.json_schema)
    cache = ReplyCache(options.cache_path, CacheMode.parse(options.cache_mode))
    settings = RuntimeSettings(concurrency=options.concurrency, timeout_s=options.timeout_s)
    try:
        with open_backend(model, timeout_s=options.timeout_s) as backend:
            yield model, CallRuntime(backend, cache, settings)
    finally:
        cache.close()


@contextlib.contextmanager
def open_judge(options: JudgeOptions) -> Iterator[JudgeSession]:
    """A GroUSE judge (four metric prompts) on the shared runtime; prompts load before anything starts."""
    prompts = load_prompt_set(options.prompts)
    with open_runtime(options) as (model, runtime):
        params = judge_params(options.temperature, options.max_tokens, options.seed, options.extra)
        yield JudgeSession(GroundedQAJudge(runtime, prompts, model, params), model, prompts, runtime)


def default_run_dir(root: Path, *parts: str) -> Path:
    from datetime import datetime, timezone

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    slug = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return root / f"{stamp}-{slug}"
