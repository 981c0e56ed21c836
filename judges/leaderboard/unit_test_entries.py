"""Leaderboard rows from unit tests: pass rate per metric (Wilson interval) and the total (bootstrap interval)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np

from judges.runs.summary import summarize
from judges.types import ALL_METRICS
from judges.leaderboard.config import Candidate, Evaluation
from judges.leaderboard.entries import Entry

RESAMPLES, SEED = 1000, 0


def wilson(passed: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    from scipy.stats import binomtest

    interval = binomtest(passed, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def total_interval(rows: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """Bootstrap over tests of the mean of the six pass rates (one index matrix, seeded)."""
    if not rows:
        return None, None
    passes = np.array([[row["metrics"][m]["outcome"] == "pass" for m in ALL_METRICS] for row in rows], dtype=float)
    index = np.random.default_rng(SEED).integers(0, len(rows), size=(RESAMPLES, len(rows)))
    totals = passes[index].mean(axis=(1, 2))
    low, high = np.percentile(totals, [2.5, 97.5])
    return float(low), float(high)


def rows_to_entries(rows: list[dict[str, Any]], base: dict[str, Any], seconds: float) -> list[Entry]:
    summary = summarize(rows)
    usage = summary["usage"]["total"]
    judged = [summary["metrics"][m] for m in ALL_METRICS[:4]]
    n_verdicts = sum(s["n"] for s in judged)
    failure_rate = sum(s["format_failures"] for s in judged) / n_verdicts if n_verdicts else None
    common = dict(base, failure_rate=failure_rate, calls=int(usage["calls"]), cost_usd=float(usage["cost"]),
                  seconds=seconds)
    entries = []
    for metric in ALL_METRICS:
        stats = summary["metrics"][metric]
        low, high = wilson(stats["passed"], stats["n"])
        entries.append(Entry(**common, metric=metric, statistic="pass_rate", value=stats["pass_rate"], ci_low=low,
                             ci_high=high, n=stats["n"]))
    low, high = total_interval(rows)
    entries.append(Entry(**common, metric="total", statistic="pass_rate", value=summary["total_pass_rate"],
                         ci_low=low, ci_high=high, n=len(rows)))
    return entries


def unit_test_entries(candidate: Candidate, evaluation: Evaluation, cache: str, runs_dir: Path) -> list[Entry]:
    from judges.suite.baselines import run_baseline
    from judges.suite.scoring import run_meta_eval
    from judges.judging.prompts import load_prompt_set
    from judges.judging.factory import JudgeOptions, open_judge
    from judges.suite.loading import load_unit_tests

    tests = load_unit_tests(evaluation.source, evaluation.split)[:evaluation.limit]
    base = dict(candidate=candidate.name, kind=candidate.kind, model=candidate.model, evaluation=evaluation.name)
    started = time.perf_counter()
    if candidate.kind == "baseline":
        prompts = load_prompt_set(candidate.prompts)
        rows = [r.to_dict() for r in run_baseline(str(candidate.baseline), tests, prompts)]
        entries = rows_to_entries(rows, dict(base, prompts=None, prompt_sha=None), 0.0)
        for entry in entries:
            entry.calls, entry.cost_usd = 0, 0.0  # scripted replies: no model was called
        return entries
    options = JudgeOptions(judge=str(candidate.model), prompts=candidate.prompts, api_base=candidate.api_base,
                           cache_path=cache, **candidate.params)
    out = runs_dir / f"{candidate.name}--{evaluation.name.replace(':', '_')}"
    with open_judge(options) as session:
        run = asyncio.run(run_meta_eval(tests, session.judge, out / "results.jsonl"))
        prompt_sha = "".join(sorted(session.prompts.hashes().values()))
    import hashlib

    short = hashlib.sha256(prompt_sha.encode()).hexdigest()[:12]
    return rows_to_entries([r.to_dict() for r in run.results], dict(base, prompts=candidate.prompts, prompt_sha=short),
                           time.perf_counter() - started)
