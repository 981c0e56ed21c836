"""Leaderboard rows from unit tests: pass rate per metric (Wilson interval) and the total (bootstrap interval)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judges.api import run_unit_tests
from judges.leaderboard.config_types import PASS_RATE, TOTAL
from judges.leaderboard.entries import Entry, check_stop, noted
from judges.records import ItemRecord
from judges.runs.intervals import wilson
from judges.runs.run_writer import FolderRecorder
from judges.runs.summarizer import median_latency
from judges.suite.baselines import run_baseline
from judges.suite.loading import load_unit_tests
from judges.suite.pass_interval import total_interval
from judges.types import ALL_METRICS, Outcome

if TYPE_CHECKING:  # annotations only
    from judges.leaderboard.config_types import Candidate, Evaluation, Jury


def run_costs(run: Any) -> dict[str, Any]:
    """Calls, their price (cached replies at what they cost when made) and the median latency per answered call:
    figures a warm cache does not change."""

    usage = run.summary.usage
    return {
        "calls": usage.calls,
        "cost_usd": float(usage.priced_cost),
        "latency_s_per_uncached_call": median_latency(run.records),
    }


def item_passes(rows: list[ItemRecord], metric: str) -> dict[str, float]:
    """1 or 0 per completed test (its pass on `metric`): their mean is the metric's pass rate."""
    return {
        r.id: float(r.metrics[metric].outcome is Outcome.PASS)
        for r in rows
        if r.metrics[metric].outcome is not Outcome.FAILURE
    }


def run_to_entries(run: Any, base: dict[str, Any], seconds: float) -> list[Entry]:
    summary = run.summary
    judged = [summary.metrics[m] for m in ALL_METRICS[:4]]
    n_verdicts = sum(s.n for s in judged)
    failure_rate = sum(s.failures or 0 for s in judged) / n_verdicts if n_verdicts else None
    common = dict(base, failure_rate=failure_rate, seconds=seconds, **run_costs(run))
    rows = [r for r in run.records if r.draw == 0]
    entries = []
    for metric in ALL_METRICS:
        stats = summary.metrics[metric]
        low, high = wilson(stats.passed or 0, stats.completed or 0)
        entries.append(
            Entry(
                **common,
                metric=metric,
                statistic=PASS_RATE,
                value=stats.pass_rate,
                item_values=item_passes(rows, metric),
                ci_low=low,
                ci_high=high,
                n=stats.completed,
            )
        )
    low, high = total_interval(rows)
    # each test's mean over the six metrics averages to the total only when every test completed every metric
    per_test = {r.id: sum(r.metrics[m].outcome is Outcome.PASS for m in ALL_METRICS) / len(ALL_METRICS) for r in rows}
    entries.append(
        Entry(
            **common,
            metric=TOTAL,
            statistic=PASS_RATE,
            value=summary.total_pass_rate,
            item_values=per_test if not any(s.failures for s in summary.metrics.values()) else None,
            ci_low=low,
            ci_high=high,
            n=summary.completed_tests,
        )
    )
    return entries


def unit_test_entries(
    candidate: Candidate, evaluation: Evaluation, cache: str, runs_dir: Path, *, progress: bool = False
) -> list[Entry]:
    """The candidate's run on the evaluation's unit tests (its folder under `runs_dir`), as leaderboard rows."""
    tests = load_unit_tests(evaluation.source, evaluation.split)[: evaluation.limit]
    base = dict(candidate=candidate.name, kind=candidate.kind, model=candidate.model, evaluation=evaluation.name)
    out = run_folder(runs_dir, candidate, evaluation)
    started = time.perf_counter()
    if candidate.kind == "baseline":
        run = run_baseline(
            str(candidate.baseline),
            tests,
            candidate.prompts,
            recorder=FolderRecorder(out),
            data=str(evaluation.source),
            split=evaluation.split,
        )
        entries = run_to_entries(run, dict(base, prompts=None, prompt_sha=None, baseline=candidate.baseline), 0.0)
        for entry in entries:  # scripted replies: no model was called
            entry.calls, entry.cost_usd, entry.latency_s_per_uncached_call = 0, 0.0, None
        return entries
    run = run_unit_tests(
        tests, candidate.judge(cache), out=out, data=str(evaluation.source), split=evaluation.split, progress=progress
    )
    note = check_stop(run)
    prompt_sha = "".join(sorted(run.config.prompts_sha256.values()))
    short = hashlib.sha256(prompt_sha.encode()).hexdigest()[:12]
    entries = run_to_entries(
        run, dict(base, prompts=candidate.prompts, prompt_sha=short), time.perf_counter() - started
    )
    return noted(entries, note)


def run_folder(runs_dir: Path, candidate: Candidate | Jury, evaluation: Evaluation) -> Path:
    """runs/<candidate>--<evaluation>, safe for any evaluation name."""
    import re

    return runs_dir / f"{candidate.name}--{re.sub(r'[^A-Za-z0-9._-]+', '_', evaluation.name)}"
