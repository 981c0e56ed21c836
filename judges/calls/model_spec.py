"""Judge model specs: which backend reaches a model id, and what the model can do (capabilities are fields)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from judges.calls.backend import Backend
from judges.errors import BackendUnavailable, ConfigError

DEFAULT_JUDGE = "local/smollm2-135m"
LOCAL_MODELS = {"local/smollm2-135m": "smollm2-135m"}


@dataclass(frozen=True)
class JudgeModel:
    """A model id as the user wrote it, the id LiteLLM is called with, and its capabilities."""

    name: str
    litellm_model: str
    json_schema: bool = False  # send the metric's JSON schema to constrain decoding
    local: bool = False
    api_base: str | None = None
    max_parallel_calls: int | None = None  # a local llama.cpp server answers one request at a time

    @classmethod
    def from_name(cls, name: str, *, api_base: str | None = None, json_schema: bool | None = None) -> JudgeModel:
        if name in LOCAL_MODELS:
            return cls(
                name,
                f"openai/{LOCAL_MODELS[name]}",
                json_schema=True if json_schema is None else json_schema,
                local=True,
                max_parallel_calls=1,
            )
        if name.startswith("local/"):
            raise ConfigError(f"unknown local judge {name!r}; known: {', '.join(LOCAL_MODELS)}")
        return cls(name, name, json_schema=bool(json_schema), api_base=api_base)


def missing_keys(model: JudgeModel) -> list[str] | None:
    """The provider's key variables absent from the environment ([] when all are set; None when LiteLLM cannot tell)."""
    from judges.calls.litellm_backend import import_litellm

    try:
        found = import_litellm().validate_environment(model=model.litellm_model)
    except Exception:  # a provider LiteLLM cannot check: let the first call tell
        return None
    if found.get("keys_in_environment", True):
        return []
    return list(found.get("missing_keys") or ["the provider's API key"])


def check_api_key(model: JudgeModel) -> None:
    """Fail before any call when the provider's key is missing (skipped for local and custom-base models)."""
    if model.local or model.api_base:
        return
    missing = missing_keys(model)
    if missing:
        raise BackendUnavailable(f"missing API key for {model.name}: set {', '.join(missing)} in the environment")


@contextlib.contextmanager
def open_backend(
    model: JudgeModel, *, timeout_s: float = 120.0, connection: dict[str, Any] | None = None
) -> Iterator[Backend]:
    """The LiteLLM backend for `model`, with the local llama.cpp server running around it when needed.

    `connection` holds credential-like arguments (api_key, extra headers): sent, never cached or logged.
    """
    from judges.calls.litellm_backend import LiteLLMBackend

    if not model.local:
        connection = dict(connection or {})
        if not connection.get("api_key"):
            check_api_key(model)
            if model.api_base and missing_keys(model):
                connection["api_key"] = "none"  # a self-hosted server (vLLM, llama.cpp, Ollama) needs no key
        yield LiteLLMBackend(api_base=model.api_base, timeout_s=timeout_s, connection=connection)
        return
    from judges.calls.litellm_backend import import_litellm
    from judges.calls.local_server import LlamaServer, smollm2_path

    server = LlamaServer(smollm2_path())
    server.start()
    try:
        import_litellm()  # about 3 s, while the server loads the model
        server.wait_ready()
        yield LiteLLMBackend(api_base=server.api_base, api_key="none", timeout_s=timeout_s)
    finally:
        server.stop()


def judge_params(
    temperature: float | None, max_tokens: int | None, seed: int | None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The generation parameters that are set (None means the provider's default)."""
    params: dict[str, Any] = {
        k: v for k, v in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)) if v is not None
    }
    if extra:
        params["extra"] = dict(sorted(extra.items()))
    return params
