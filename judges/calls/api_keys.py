"""The check that a provider's API key is set, made before any call."""

from __future__ import annotations

from typing import Any

from judges.calls.litellm_backend import import_litellm
from judges.calls.model_spec import JudgeModel
from judges.calls.prices import provider
from judges.errors import BackendUnavailable

# The key each common provider reads; any other provider is asked of LiteLLM (which then gets imported).
PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}


def missing_keys(model: JudgeModel) -> list[str] | None:
    """The provider's key variables absent from the environment ([] when all are set; None when it cannot be told)."""
    import os

    key = PROVIDER_KEYS.get(provider(model.litellm_model) or "")
    if key is not None:
        return [] if os.environ.get(key) else [key]

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


def check_key(model: JudgeModel, connection: dict[str, Any], *, replay: bool) -> None:
    """Fail before any call when the provider's API key is missing: not when the connection carries a key, nor when
    the run answers from recorded replies alone (`replay`)."""
    if not replay and not connection.get("api_key"):
        check_api_key(model)
