"""`--dry-run` of the commands that judge items (meta-eval, evaluate, validate, probe, leaderboard): the calls,
tokens and cost a run would need, printed, with nothing called."""

from __future__ import annotations

from typing import Any

from judges.config.judge import JudgeConfig
from judges.executors.batch_prices import side_by_side
from judges.judging.factory import planning_judge
from judges.runs.cost_estimate import estimate_meta_eval


def dry_run(tests: list[Any], config: JudgeConfig, draws: int, unit: str = "unit tests") -> int:
    """Print the calls, tokens and cost judging `tests` (unit tests, or samples) would take; call nothing."""

    judge, cache = planning_judge(config)
    try:
        print(f"{len(tests)} {unit} x {draws} draw(s) with {config.model}")
        estimate = estimate_meta_eval(tests, judge, draws, cache)
        print(estimate.describe())
        if not judge.model.local:
            model = judge.model.litellm_model
            print(
                side_by_side(
                    model,
                    estimate.prompt_tokens,
                    estimate.completion_tokens_expected,
                    estimate.completion_tokens_max,
                    estimate.cost_expected,
                )
            )
    finally:
        if cache is not None:
            cache.close()
    return 0
