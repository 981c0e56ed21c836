"""Dry-run estimates: calls, tokens and cost a meta-eval would spend, from rendered prompts and the cache."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judges.calls.cache import ReplyCache
from judges.judging.grouse_judge import GroundedQAJudge
from judges.types import Sample, UnitTest

EXPECTED_COMPLETION_TOKENS = 150  # a two-answer JSON reply with short justifications


@dataclass
class Estimate:
    calls_min: int
    calls_max: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens_expected: int
    completion_tokens_max: int
    cost_expected: float | None  # None: no price known for this model
    cost_max: float | None

    def describe(self) -> str:
        def money(value: float | None) -> str:
            return "unknown (no price for this model)" if value is None else f"${value:.4f}"

        return (
            f"dry run: {self.calls_min}-{self.calls_max} calls ({self.cached_calls} already cached), at most "
            f"about {self.prompt_tokens:,} prompt tokens to send, {self.completion_tokens_expected:,} "
            f"completion tokens expected (at most {self.completion_tokens_max:,}); expected cost "
            f"{money(self.cost_expected)}, at most {money(self.cost_max)}. Nothing was called."
        )


def estimate_meta_eval(
    tests: Sequence[UnitTest | Sample], judge: GroundedQAJudge, draws: int = 1, cache: ReplyCache | None = None
) -> Estimate:
    """Per test (or sample: `evaluate`'s dry run) and draw: relevancy and completeness always, then faithfulness or
    usefulness (+ faithfulness)."""
    from judges.calls.litellm_backend import import_litellm

    litellm = import_litellm()
    model = judge.model.litellm_model
    max_tokens = int(judge.params.get("max_tokens") or 1024)
    calls_min = calls_max = cached = prompt_tokens = 0
    for draw in range(draws):
        for test in tests:
            prompts = judge.render_all(test.sample if isinstance(test, UnitTest) else test)
            counts = {
                m: litellm.token_counter(model=model, messages=[{"role": "user", "content": text}])
                for m, text in prompts.items()
            }
            for metric in ("answer_relevancy", "completeness"):
                request = judge.request(metric, [{"role": "user", "content": prompts[metric]}], draw)
                hit = cache is not None and cache.get(request) is not None
                cached += int(hit)
                prompt_tokens += 0 if hit else counts[metric]
            calls_min += 3
            calls_max += 4
            prompt_tokens += counts["faithfulness"] + counts["usefulness"]
    uncached = calls_max - cached
    expected_completion = uncached * min(EXPECTED_COMPLETION_TOKENS, max_tokens)
    return Estimate(
        calls_min,
        calls_max,
        cached,
        prompt_tokens,
        expected_completion,
        uncached * max_tokens,
        _cost(litellm, model, prompt_tokens, expected_completion, judge.model.local),
        _cost(litellm, model, prompt_tokens, uncached * max_tokens, judge.model.local),
    )


def _cost(litellm: Any, model: str, prompt_tokens: int, completion_tokens: int, local: bool) -> float | None:
    if local:
        return 0.0
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # LiteLLM has no price for this model
        return None
    return float(prompt_cost + completion_cost)
