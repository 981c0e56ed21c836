"""LiteLLM's price table, read as JSON from the installed package (LiteLLM itself is not imported)."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

PRICE_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def price_table() -> dict[str, Any]:
    """Model id -> its entry (input_cost_per_token, output_cost_per_token, litellm_provider, ...); {} without
    LiteLLM."""
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(list(spec.submodule_search_locations)[0]) / PRICE_FILE
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in table.items() if isinstance(v, dict)}


def entry(model: str) -> dict[str, Any] | None:
    """The table's entry for a model id as written, or without its provider prefix (`openai/gpt-4o-mini`)."""
    table = price_table()
    found = table.get(model)
    if found is None and "/" in model:
        found = table.get(model.split("/", 1)[1])
    return found


def call_cost(models: list[str], prompt_tokens: int, completion_tokens: int) -> float:
    """USD for one call, priced by the first of `models` the table knows; 0.0 for a model it cannot price."""
    for model in models:
        found = entry(model) if model else None
        if found and ("input_cost_per_token" in found or "output_cost_per_token" in found):
            return float(
                prompt_tokens * float(found.get("input_cost_per_token") or 0.0)
                + completion_tokens * float(found.get("output_cost_per_token") or 0.0)
            )
    return 0.0


def provider(model: str) -> str | None:
    """The provider LiteLLM would route a model id to: its prefix, or the table's `litellm_provider` for a bare
    name (None when neither says)."""
    if "/" in model:
        return model.split("/", 1)[0]
    found = price_table().get(model)
    return str(found["litellm_provider"]) if found and found.get("litellm_provider") else None
