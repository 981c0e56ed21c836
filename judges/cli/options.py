"""Turns parsed command-line arguments into the library's option objects."""

from __future__ import annotations

import argparse

from judges.judging.factory import JudgeOptions


def judge_options(args: argparse.Namespace) -> JudgeOptions:
    return JudgeOptions(
        judge=args.judge,
        prompts=args.prompts,
        api_base=args.api_base[0] if args.api_base and len(args.api_base) == 1 else args.api_base,
        client=args.client,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        seed=args.seed,
        extra=JudgeOptions.parse_extra(args.extra),
        json_schema=args.json_schema,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        cache_path=args.cache,
        cache_mode=args.cache_mode,
        requests_per_minute=args.rpm,
        tokens_per_minute=args.tpm,
        max_cost=args.max_cost,
        vision=args.vision,
        image_max_side=args.image_max_side,
        fail_on_error=getattr(args, "fail_on_error", None),
    )
