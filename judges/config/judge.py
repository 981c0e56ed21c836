"""`JudgeConfig`: a judge and its runtime settings, each with its one default; the CLI, TOML and API build it.

Adding an option: add one annotated field below (its `Cli` metadata says how the flag reads) and its line in
`JudgeSettings` (a test fails until both agree). The CLI flag, the `[judge]` key of the gate, the key of a
leaderboard candidate and the keyword argument of the Python API follow from the field. See docs/configuration.md.
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from typing_extensions import TypedDict

from judges.calls.endpoint_auth import check_headers, check_url
from judges.calls.model_spec import DEFAULT_JUDGE, IMAGE_MAX_SIDE, JudgeModel, default_prompt_set, judge_params
from judges.config.fields import RANGES, Cli, in_range
from judges.errors import ConfigError
from judges.plugins import names
from judges.secrets import credential_paths, scrub_text, split_credentials

CacheModeName = Literal["read-write", "read-only", "off", "replay"]


class JudgeConfig(BaseModel):
    """A judge (model, prompts, generation parameters, capabilities) and how its calls run."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    # the judge
    model: Annotated[str, Cli("any LiteLLM model id, or a local judge", "MODEL", flag="--judge")] = DEFAULT_JUDGE
    prompts: Annotated[
        str,
        Cli(
            "prompt folder with the four metric templates, a shipped set name, or 'grouse' (default: 'compact' for a "
            "local judge, 'default' for any other)",
            "DIR",
        ),
    ] = ""
    api_base: Annotated[
        str | list[str] | None,
        Cli(
            "OpenAI-compatible server for the model; repeat it to spread calls over several deployments of the same "
            "judge (--concurrency each, a failing one routed around)",
            "URL",
        ),
    ] = None
    client: Annotated[
        str | None,
        Cli(
            "lean: direct HTTP for OpenAI-compatible endpoints (default for them and for local judges); litellm: "
            "through LiteLLM (default for other providers); or a backend another package registers "
            "(judgelab.backends)",
            "NAME",
        ),
    ] = None
    temperature: Annotated[float | None, Cli("sampling temperature", "T")] = 0.0
    max_tokens: Annotated[int | None, Cli("reply length limit", "N")] = 512
    seed: Annotated[int | None, Cli("sampling seed", "N")] = 0
    extra: Annotated[
        dict[str, Any],
        Cli("extra LiteLLM arguments as a JSON object; credential fields are sent, never stored", "JSON"),
    ] = Field(default_factory=dict)
    # capabilities
    json_schema: Annotated[
        bool | None, Cli("constrain replies to each metric's JSON schema (default: on for local judges)")
    ] = None
    vision: Annotated[
        bool | None,
        Cli("the judge sees images (default: as LiteLLM's model table says; the offline judge never does)"),
    ] = None
    image_max_side: Annotated[int, Cli("images are sent shrunk to at most PX pixels a side", "PX")] = IMAGE_MAX_SIDE
    # the runtime
    concurrency: Annotated[int, Cli("calls in flight at once, per deployment", "N", group="runtime")] = 8
    timeout_s: Annotated[float, Cli("seconds per call before a retry", "S", flag="--timeout", group="runtime")] = 120.0
    max_attempts: Annotated[
        int,
        Cli("tries per call: the first and its retries on 429, 5xx, connection errors, timeouts", "N", group="runtime"),
    ] = 4
    cache: Annotated[str, Cli("reply cache (SQLite)", "PATH", group="runtime")] = ".judgelab/cache.sqlite"
    cache_mode: Annotated[
        CacheModeName, Cli("replay: recorded replies only, a miss is an error (for CI)", group="runtime")
    ] = "read-write"
    rpm: Annotated[float | None, Cli("at most N requests per minute per model", "N", group="runtime")] = None
    tpm: Annotated[float | None, Cli("at most N tokens per minute per model (estimated)", "N", group="runtime")] = None
    max_cost: Annotated[
        float | None,
        Cli("stop cleanly once this much is spent (exit 4; every paid reply is cached)", "USD", group="runtime"),
    ] = None
    executor: Annotated[
        str,
        Cli(
            "where the calls are made: local (this process), batch (the provider's batch API: about half the price, "
            "results within 24 h), ray (a Ray cluster: local, or --ray-address), or one another package registers "
            "(judgelab.executors)",
            "NAME",
            group="runtime",
        ),
    ] = "local"
    ray_address: Annotated[
        str | None, Cli("an existing Ray cluster (default: RAY_ADDRESS)", "ADDR", group="runtime")
    ] = None
    ray_workers: Annotated[int, Cli("Ray workers calling the judge", "N", group="runtime")] = 2
    executor_window: Annotated[
        int | None,
        Cli(
            "samples or tests an executor settles at once, bounding what the driver holds (default: 2,000 with ray, "
            "50,000 with batch)",
            "N",
            group="runtime",
        ),
    ] = None
    batch_retry: Annotated[bool, Cli("call a request that failed in a batch again, online", group="runtime")] = False
    fail_on_error: Annotated[
        float | None,
        Cli(
            "a finished run whose share of failed verdicts in any metric is over RATE is degraded (exit 5); "
            "1 never stops",
            "RATE",
            group="runtime",
        ),
    ] = 0.1  # the "sensible default" (Inspect's --fail-on-error works the same way); None: never checked

    @field_validator("extra", mode="before")
    @classmethod
    def _extra_object(cls, value: Any) -> Any:
        if isinstance(value, str):  # the command line's JSON text
            try:
                value = json.loads(value) if value.strip() else {}
            except json.JSONDecodeError as err:
                raise ValueError(f"must be a JSON object: {err.msg}") from None
        if not isinstance(value, dict):
            raise ValueError("must be a JSON object, e.g. '{\"top_p\": 0.9}'")
        return check_headers(value)  # a CR or LF in a header would split it: refused before any call

    @field_validator("cache", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> Any:
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @field_validator("api_base", mode="before")
    @classmethod
    def _one_or_more_urls(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            if not value or not all(isinstance(url, str) and url for url in value):
                raise ValueError("needs a URL")
            for url in value:
                check_url(url)  # a malformed one is one line naming it masked (exit 2), before any call
            return value[0] if len(value) == 1 else list(value)
        if value == "":
            raise ValueError("needs a URL")
        return check_url(value) if isinstance(value, str) else value

    @field_validator(*RANGES)
    @classmethod
    def _in_range(cls, value: float | None, info: ValidationInfo) -> float | None:
        """Each number within its range (`RANGES`); None, where a field allows it, is no limit."""
        return in_range(RANGES, info.field_name, value)

    @field_validator("executor", "client")
    @classmethod
    def _registered(cls, value: str | None, info: ValidationInfo) -> str | None:
        """An executor (or `local`) registered under `judgelab.executors`, a client under `judgelab.backends`
        (nothing of it is imported here)."""
        known = ["local", *names("executors")] if info.field_name == "executor" else names("backends")
        if value is not None and value not in known:
            near = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"must be one of {', '.join(known)}{hint}")
        return value

    @model_validator(mode="after")
    def _judges_own_prompts(self) -> JudgeConfig:
        """No prompt set given: the judge's own (the compact set for a local judge); not counted as set."""
        if not self.prompts:
            object.__setattr__(self, "prompts", default_prompt_set(self.model or ""))
        return self

    def judge_model(self) -> JudgeModel:
        """The judge model this config names, with its capabilities."""
        bases = self.api_bases()
        return JudgeModel.from_name(
            self.model,
            api_base=bases[0] if bases else None,
            json_schema=self.json_schema,
            vision=self.vision,
            image_max_side=self.image_max_side,
        )

    def api_bases(self) -> list[str]:
        """Every API base given, in order (none: the provider's own endpoint)."""
        if self.api_base is None:
            return []
        return [self.api_base] if isinstance(self.api_base, str) else list(self.api_base)

    def generation_extra(self) -> dict[str, Any]:
        """Extra arguments that shape the reply (part of the cache key and the reports): credential fields at any
        depth (`api_key`, `extra_body.api_key`, `metadata.token`, `extra_headers`) are split out."""
        return split_credentials(self.extra)[0]

    def connection_extra(self) -> dict[str, Any]:
        """The credential fields of the extras, nested as given: sent with each call, never hashed, stored or logged."""
        return split_credentials(self.extra)[1] or {}

    def params(self) -> dict[str, Any]:
        """The generation parameters sent with each call (and hashed into its cache key)."""
        return judge_params(self.temperature, self.max_tokens, self.seed, self.generation_extra())

    def public_params(self) -> dict[str, Any]:
        """Parameters as recorded in reports; credential-like extras are named but never shown."""
        hidden = credential_paths(self.extra)
        return {**self.params(), **({"credentials": hidden} if hidden else {})}

    def given(self) -> dict[str, Any]:
        """The judge fields set explicitly (not left to their defaults), as plain values."""
        return {name: getattr(self, name) for name in JUDGE_FIELDS if name in self.model_fields_set}

    def merged(self, **changes: Any) -> JudgeConfig:
        """A checked copy of this config's judge fields with `changes` applied (defaults derived anew)."""
        return build_config({**self.given(), **changes})


class JudgeSettings(TypedDict, total=False):
    """The keyword arguments of the Python API that set a judge field: every JudgeConfig field but `model`, which
    is the functions' `judge` argument (tests/test_config.py checks that the two agree)."""

    prompts: str
    api_base: str | list[str] | None
    client: str | None
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    extra: dict[str, Any]
    json_schema: bool | None
    vision: bool | None
    image_max_side: int
    concurrency: int
    timeout_s: float
    max_attempts: int
    cache: str | os.PathLike[str]
    cache_mode: CacheModeName
    rpm: float | None
    tpm: float | None
    max_cost: float | None
    executor: str
    ray_address: str | None
    ray_workers: int
    executor_window: int | None
    batch_retry: bool
    fail_on_error: float | None


JUDGE_FIELDS: tuple[str, ...] = tuple(JudgeConfig.model_fields)


def cli_of(name: str) -> Cli:
    """The `Cli` metadata of a field."""
    return next(m for m in JudgeConfig.model_fields[name].metadata if isinstance(m, Cli))


def flag_of(name: str) -> str:
    """The command-line flag of a field: `--judge` for `model`, `--timeout` for `timeout_s`, else `--field-name`."""
    return cli_of(name).flag or "--" + name.replace("_", "-")


def build_config(values: dict[str, Any], flags: bool = False) -> JudgeConfig:
    """A checked JudgeConfig; a bad value is one ConfigError line naming the field (its flag when `flags`)."""
    from pydantic import ValidationError

    try:
        return JudgeConfig.model_validate(values)
    except ValidationError as err:
        problem = err.errors(include_url=False)[0]
        name = str(problem["loc"][0]) if problem["loc"] else ""
        shown = flag_of(name) if flags and name in JudgeConfig.model_fields else name
        raise ConfigError(describe(shown, problem)) from None


def describe(where: str, problem: Any) -> str:
    """`--max-cost must be a positive number of USD, got -1` from one pydantic error."""
    if problem["type"] == "extra_forbidden":
        import difflib

        near = difflib.get_close_matches(where, JUDGE_FIELDS, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}?" if near else f"expected one of {', '.join(JUDGE_FIELDS)}"
        return f"unknown judge option {where!r}; {hint}"
    message = str(problem["msg"]).removeprefix("Value error, ")
    # the extras may hold a key (unknown as one when their JSON is broken), an API base is named masked: not echoed
    given = "" if where.lstrip("-") in ("extra", "api-base", "api_base") else f", got {problem.get('input')!r}"
    return scrub_text(f"{where} {message[:1].lower()}{message[1:]}{given}")


def judge_config(judge: str | JudgeConfig | None = None, **changes: Any) -> JudgeConfig:
    """A config from a model id or a JudgeConfig, with keyword changes (any JudgeSettings key)."""
    if isinstance(judge, JudgeConfig):
        return judge.merged(**changes) if changes else judge
    return build_config({**({"model": judge} if judge is not None else {}), **changes})
