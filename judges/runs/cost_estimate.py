"""Dry-run estimates: calls, tokens and cost a meta-eval would spend, from rendered prompts and the cache."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judges.calls.cache import ReplyCache
from judges.calls.litellm_backend import import_litellm
from judges.judging.grouse_judge import GroundedQAJudge
from judges.types import Sample, UnitTest

EXPECTED_COMPLETION_TOKENS = 150  # a two-answer JSON reply with short justifications
MEASURED = ("answer_relevancy", "completeness", "faithfulness", "usefulness")  # the prompts a test's estimate counts


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
    usefulness (+ faithfulness). Closed-form in the draws: each test's prompts are rendered and counted once (a draw
    sends the same prompts); the cache is asked draw by draw only while a draw has a cached reply (a run makes its
    draws in order, so the first draw with none ends the cached ones), so a million draws cost no more than one."""

    litellm = import_litellm()
    model = judge.model.litellm_model
    max_tokens = int(judge.params.get("max_tokens") or 1024)
    counted = []
    for test in tests:
        prompts = judge.render_all(test.sample if isinstance(test, UnitTest) else test)
        counts = {
            m: litellm.token_counter(model=model, messages=[{"role": "user", "content": text}])
            for m, text in prompts.items()
        }
        counted.append((prompts, counts))
    per_draw = sum(sum(counts[m] for m in MEASURED) for _, counts in counted)
    cached = cached_tokens = 0
    for draw in range(draws if cache is not None else 0):
        hits = [
            counts[metric]
            for prompts, counts in counted
            for metric in ("answer_relevancy", "completeness")
            if cache is not None
            and cache.get(judge.request(metric, [{"role": "user", "content": prompts[metric]}], draw)) is not None
        ]
        if not hits:
            break
        cached, cached_tokens = cached + len(hits), cached_tokens + sum(hits)
    calls_min, calls_max = 3 * len(counted) * draws, 4 * len(counted) * draws
    prompt_tokens = per_draw * draws - cached_tokens
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
