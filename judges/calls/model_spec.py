"""Judge model specs: which backend reaches a model id, and what the model can do (capabilities are fields)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from judges.calls.backend import Backend
from judges.errors import BackendUnavailable, ConfigError

DEFAULT_JUDGE = "local/smollm2-135m"
# the name the local server is called with: it names the weights' encoding, so replies cached from another
# encoding of the same model are not served as this one's (judges/calls/gguf_encoding.py)
LOCAL_MODELS = {"local/smollm2-135m": "smollm2-135m-q8_0"}
# a local judge's own prompt set: the default prompts with answer 2 graded alone under short reply keys, wherever
# that keeps the pass rates (prompts/compact); a small model writes far fewer tokens (results/benchmarks/offline_judge.md)
LOCAL_PROMPTS = "compact"

IMAGE_MAX_SIDE = 1024  # pixels a side an image is shrunk to before it is sent, unless the judge says otherwise


@dataclass(frozen=True)
class JudgeModel:
    """A model id as the user wrote it, the id LiteLLM is called with, and its capabilities."""

    name: str
    litellm_model: str
    json_schema: bool = False  # send the metric's JSON schema to constrain decoding
    local: bool = False
    api_base: str | None = None
    max_parallel_calls: int | None = None  # a local llama.cpp server answers one request at a time
    vision: bool | None = None  # sees images; None: LiteLLM's model table says (see judges.images.vision)
    image_max_side: int = IMAGE_MAX_SIDE  # images are sent shrunk to at most this many pixels a side

    @classmethod
    def from_name(
        cls,
        name: str,
        *,
        api_base: str | None = None,
        json_schema: bool | None = None,
        vision: bool | None = None,
        image_max_side: int = IMAGE_MAX_SIDE,
    ) -> JudgeModel:
        if name in LOCAL_MODELS:
            return cls(
                name,
                f"openai/{LOCAL_MODELS[name]}",
                json_schema=True if json_schema is None else json_schema,
                local=True,
                max_parallel_calls=1,
                vision=False,
                image_max_side=image_max_side,
            )
        if name.startswith("local/"):
            raise ConfigError(f"unknown local judge {name!r}; known: {', '.join(LOCAL_MODELS)}")
        return cls(
            name, name, json_schema=bool(json_schema), api_base=api_base, vision=vision, image_max_side=image_max_side
        )


def default_prompt_set(name: str) -> str:
    """The shipped prompt set judge `name` runs with unless one is given: the compact one for local judges."""
    return LOCAL_PROMPTS if name in LOCAL_MODELS else "default"


# The key each common provider reads; any other provider is asked of LiteLLM (which then gets imported).
PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}
CLIENTS = ("lean", "litellm")


def missing_keys(model: JudgeModel) -> list[str] | None:
    """The provider's key variables absent from the environment ([] when all are set; None when it cannot be told)."""
    import os

    from judges.calls.prices import provider

    key = PROVIDER_KEYS.get(provider(model.litellm_model) or "")
    if key is not None:
        return [] if os.environ.get(key) else [key]
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


def default_client(model: JudgeModel) -> str:
    """ "lean" for local judges and OpenAI-compatible endpoints (OpenAI, or openai/... at any --api-base), else
    "litellm"."""
    from judges.calls.openai_http import OPENAI_COMPATIBLE
    from judges.calls.prices import provider

    return "lean" if model.local or provider(model.litellm_model) in OPENAI_COMPATIBLE else "litellm"


def _client_backend(client: str, api_base: str | None, timeout_s: float, connection: dict[str, Any]) -> Backend:
    if client == "lean":
        from judges.calls.openai_http import OpenAIHTTPBackend

        return OpenAIHTTPBackend(api_base=api_base, timeout_s=timeout_s, connection=connection)
    from judges.calls.litellm_backend import LiteLLMBackend

    return LiteLLMBackend(api_base=api_base, timeout_s=timeout_s, connection=connection)


@contextlib.contextmanager
def open_backend(
    model: JudgeModel,
    *,
    timeout_s: float = 120.0,
    connection: dict[str, Any] | None = None,
    client: str | None = None,
    api_bases: Sequence[str] = (),
    per_deployment: int = 8,
) -> Iterator[Backend]:
    """The backend for `model` (the lean one or LiteLLM's, see `default_client`), with the local llama.cpp server
    started on the first call that needs it and stopped afterwards. Several `api_bases` are deployments of one
    judge: calls are spread over them, at most `per_deployment` at once on each.

    `connection` holds credential-like arguments (api_key, extra headers): sent, never cached or logged.
    Nothing heavy is imported and nothing is started here: a fully cached run never needs it.
    """
    from judges.calls.deferred import DeferredBackend

    client = client or default_client(model)
    if client not in CLIENTS:
        raise ConfigError(f"unknown client {client!r}; expected one of {', '.join(CLIENTS)}")
    backend: Any
    if model.local:
        from judges.calls.local_server import LlamaServer, check_installed, smollm2_path

        check_installed()
        server = LlamaServer(smollm2_path())

        def start() -> Backend:
            server.start()
            server.wait_ready()
            return _client_backend(client, server.api_base, timeout_s, {"api_key": "none"})

        backend = DeferredBackend(start)
        try:
            yield backend
        finally:
            backend.close()
            server.stop()
        return
    connection = dict(connection or {})
    if not connection.get("api_key"):
        check_api_key(model)
        if model.api_base and client == "litellm" and missing_keys(model):
            connection["api_key"] = "none"  # a self-hosted server (vLLM, llama.cpp, Ollama) needs no key
    bases: list[str | None] = [*api_bases] or [model.api_base]
    if len(bases) == 1:
        backend = _client_backend(client, bases[0], timeout_s, connection)
    else:
        from judges.calls.deployments import DeploymentRouter

        backend = DeploymentRouter(
            [(str(base), _client_backend(client, base, timeout_s, connection)) for base in bases],
            per_deployment,
        )
    try:
        yield backend
    finally:
        closer = getattr(backend, "close", None)
        if closer is not None:
            closer()


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
