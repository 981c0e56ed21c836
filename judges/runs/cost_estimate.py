"""Dry-run estimates: calls, tokens and cost a meta-eval would spend, from rendered prompts and the cache."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judges.calls.cache import ReplyCache
from judges.calls.litellm_backend import import_litellm
from judges.judging.grouse_judge import GroundedQAJudge
from judges.judging.replies import ReplyError, parse_reply
from judges.types import Sample, UnitTest, VerdictState

EXPECTED_COMPLETION_TOKENS = 150  # a two-answer JSON reply with short justifications


@dataclass
class Estimate:
    """The calls a run would make (a range: which follow-up a reply leads to is known only once it comes), the
    replies it would replay from the cache, the tokens and the cost of the calls."""

    calls_min: int
    calls_max: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens_expected: int
    completion_tokens_max: int
    cost_expected: float | None  # None: no price known for this model
    cost_max: float | None

    def calls_text(self) -> str:
        """ "12-16 calls to make (4 already cached)"; one number when the cache decides every follow-up."""
        calls = f"{self.calls_min}" if self.calls_min == self.calls_max else f"{self.calls_min}-{self.calls_max}"
        return f"{calls} calls to make ({self.cached_calls} already cached)"

    def describe(self) -> str:
        def money(value: float | None) -> str:
            return "unknown (no price for this model)" if value is None else f"${value:.4f}"

        return (
            f"dry run: {self.calls_text()}, at most "
            f"about {self.prompt_tokens:,} prompt tokens to send, {self.completion_tokens_expected:,} "
            f"completion tokens expected (at most {self.completion_tokens_max:,}); expected cost "
            f"{money(self.cost_expected)}, at most {money(self.cost_max)}. Nothing was called."
        )


def estimate_meta_eval(
    tests: Sequence[UnitTest | Sample], judge: GroundedQAJudge, draws: int = 1, cache: ReplyCache | None = None
) -> Estimate:
    """Per test (or sample: `evaluate`'s and `probe`'s dry runs) and draw, the calls the run would make: relevancy
    and completeness, then faithfulness or usefulness (+ faithfulness), each looked up in the cache as the run looks
    it up (the same request: prompt, parameters, draw); a cached reply is replayed, and decides which call follows.
    Each test's prompts are rendered and counted once (every draw sends the same prompts); the first draw with no
    cached reply ends the cached ones (a run makes its draws in order), and every later draw counts as that one."""

    litellm = import_litellm()
    model = judge.model.litellm_model
    max_tokens = int(judge.params.get("max_tokens") or 1024)
    rendered = [judge.render_all(test.sample if isinstance(test, UnitTest) else test) for test in tests]
    counted: dict[tuple[int, str], int] = {}

    def tokens(index: int, metric: str) -> int:
        if (index, metric) not in counted:
            message = {"role": "user", "content": rendered[index][metric]}
            counted[index, metric] = litellm.token_counter(model=model, messages=[message])
        return counted[index, metric]

    totals = [0, 0, 0, 0]  # fewest calls, most calls, replayed, prompt tokens
    fresh_draw: list[int] | None = None
    for draw in range(draws):
        if fresh_draw is None:
            this_draw = [0, 0, 0, 0]
            for index, prompts in enumerate(rendered):
                plan = plan_sample(judge, prompts, draw, cache)
                asked = sum(tokens(index, metric) for metric in plan.maybe_asked)
                for slot, value in enumerate((plan.fresh_min, plan.fresh_max, plan.replayed, asked)):
                    this_draw[slot] += value
            fresh_draw = this_draw if this_draw[2] == 0 else None
        totals = [a + b for a, b in zip(totals, fresh_draw or this_draw, strict=True)]
    calls_min, calls_max, cached, prompt_tokens = totals
    expected_completion = calls_max * min(EXPECTED_COMPLETION_TOKENS, max_tokens)
    return Estimate(
        calls_min,
        calls_max,
        cached,
        prompt_tokens,
        expected_completion,
        calls_max * max_tokens,
        _cost(litellm, model, prompt_tokens, expected_completion, judge.model.local),
        _cost(litellm, model, prompt_tokens, calls_max * max_tokens, judge.model.local),
    )


@dataclass
class SamplePlan:
    """One sample's draw: the fewest and most calls the run would make, the replies it surely replays from the
    cache, and the metrics it may ask afresh (whose prompts count as tokens to send)."""

    fresh_min: int
    fresh_max: int
    replayed: int
    maybe_asked: set[str]
    prompts: dict[str, str]


def plan_sample(judge: GroundedQAJudge, prompts: dict[str, str], draw: int, cache: ReplyCache | None) -> SamplePlan:
    """The judge's pipeline walked over the cache for one sample's rendered prompts: a cached reply gives its verdict
    (so the one follow-up it leads to), a missing one is a call that may come back graded or null (both counted)."""

    looked: dict[str, VerdictState | None] = {}

    def step(metric: str) -> list[tuple[int, int, VerdictState]]:
        """(calls, replayed, verdict state) for each way asking `metric` may go."""
        if metric not in looked:
            looked[metric] = _replayed(judge, metric, prompts[metric], draw, cache)
        state = looked[metric]
        return [(1, 0, VerdictState.GRADE), (1, 0, VerdictState.NULL)] if state is None else [(0, 1, state)]

    def after(metric: str, then: Callable[[VerdictState], list[tuple[int, int]]]) -> list[tuple[int, int]]:
        return [(c + c2, r + r2) for c, r, state in step(metric) for c2, r2 in then(state)]

    def after_usefulness(state: VerdictState) -> list[tuple[int, int]]:
        return after("faithfulness", lambda _: [(0, 0)]) if state is VerdictState.GRADE else [(0, 0)]

    def after_relevancy(state: VerdictState) -> list[tuple[int, int]]:
        if state is VerdictState.GRADE:
            return after("faithfulness", lambda _: [(0, 0)])
        return after("usefulness", after_usefulness) if state is VerdictState.NULL else [(0, 0)]

    paths = after("answer_relevancy", after_relevancy)
    [(completeness, kept, _)] = step("completeness")[:1]
    asked = {metric for metric, state in looked.items() if state is None}
    return SamplePlan(
        completeness + min(c for c, _ in paths),
        completeness + max(c for c, _ in paths),
        kept + min(r for _, r in paths),
        asked,
        prompts,
    )


def _replayed(
    judge: GroundedQAJudge, metric: str, prompt: str, draw: int, cache: ReplyCache | None
) -> VerdictState | None:
    """The state of the cached reply the run would replay for this first ask, or None when it would call (no reply
    cached, or one the run would find unusable and ask again)."""
    if cache is None:
        return None
    hit = cache.get(judge.request(metric, [{"role": "user", "content": prompt}], draw))
    if hit is None:
        return None
    try:
        return parse_reply(metric, hit.text, judge.prompts.templates[metric].reply_format).actual.state
    except ReplyError:
        return None


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
