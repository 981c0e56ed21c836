"""Batch prices: LiteLLM's `*_cost_per_token_batches` where its table has them, else half the online price."""

from __future__ import annotations

from judges.calls.prices import call_cost, entry

HALF = 0.5  # what OpenAI, Anthropic, Google and Together charge for batch calls where the table is silent


def has_batch_price(model: str) -> bool:
    found = entry(model)
    return bool(found and "input_cost_per_token_batches" in found)


def batch_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for one batch call of `model`."""
    found = entry(model)
    if found and "input_cost_per_token_batches" in found:
        return float(
            prompt_tokens * float(found.get("input_cost_per_token_batches") or 0.0)
            + completion_tokens * float(found.get("output_cost_per_token_batches") or 0.0)
        )
    return HALF * call_cost([model], prompt_tokens, completion_tokens)


def price_basis(model: str) -> str:
    """How a batch cost of `model` is priced, for reports."""
    return "LiteLLM's batch prices" if has_batch_price(model) else "half the online price (no batch price known)"


def side_by_side(model: str, prompt_tokens: int, expected: int, most: int, online: float | None) -> str:
    """The dry run's line comparing the online cost with the batch cost of the same calls."""
    if online is None:
        return "cost online vs --executor batch: unknown (no price for this model)"
    batch, batch_most = batch_cost(model, prompt_tokens, expected), batch_cost(model, prompt_tokens, most)
    return (
        f"cost online ${online:.4f} vs --executor batch ${batch:.4f} expected (at most ${batch_most:.4f}; "
        f"{price_basis(model)})"
    )
