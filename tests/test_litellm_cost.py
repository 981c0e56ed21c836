"""Per-call cost from LiteLLM's price map (read from the package, never fetched); 0 for a model it cannot price."""

import asyncio

import pytest
from stub import stub_server

from judges.calls.backend import CompletionRequest
from judges.calls.litellm_backend import LiteLLMBackend, import_litellm


def call(base_url: str, model: str):
    backend = LiteLLMBackend(api_base=base_url, api_key="sk-fake")
    messages = ({"role": "user", "content": "Grade this answer. " * 20},)
    return asyncio.run(backend.complete(CompletionRequest(model, messages, {"temperature": 0})))


def test_a_priced_model_costs_its_tokens_at_the_price_map_rates_and_an_unknown_one_costs_nothing():
    prices = import_litellm().model_cost["gpt-4o-mini"]
    with stub_server(latency_ms=1) as base:
        priced = call(base, "openai/gpt-4o-mini")
        unknown = call(base, "openai/stub")
    assert priced.prompt_tokens > 0 and priced.completion_tokens > 0
    expected = (
        priced.prompt_tokens * prices["input_cost_per_token"]
        + priced.completion_tokens * prices["output_cost_per_token"]
    )
    assert priced.cost == pytest.approx(expected, rel=1e-9) and priced.cost > 0
    assert unknown.cost == 0.0 and unknown.prompt_tokens == priced.prompt_tokens
