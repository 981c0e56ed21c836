"""The one summarizer of a run's records: verdict counts per metric, unit-test outcomes, usage, stability."""

from __future__ import annotations

import dataclasses
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from judges.records import (
    ItemRecord,
    MetricRecord,
    MetricStability,
    MetricSummary,
    Stability,
    Summary,
    TypeSummary,
    Usage,
)
from judges.types import ALL_METRICS, Outcome, VerdictState

SHORT = {
    "answer_relevancy": "AR",
    "completeness": "C",
    "faithfulness": "F",
    "usefulness": "U",
    "positive_acceptance": "PA",
    "negative_rejection": "NR",
}


def call_usage(calls: Iterable[Mapping[str, Any]]) -> Usage:
    """Totals over call records: replies (and how many came from the cache), failed calls (no reply, or a reply
    that could not be used) by kind, tokens, cost."""
    replies = cached = prompt_tokens = completion_tokens = 0
    cost = priced_cost = 0.0
    failures: Counter[str] = Counter()
    for call in calls:
        if "error" in call:
            failures[call["error"]] += 1
            continue
        if call.get("unusable"):
            failures[call["unusable"]] += 1
        replies += 1
        cached += bool(call.get("cached"))
        prompt_tokens += call.get("prompt_tokens", 0)
        completion_tokens += call.get("completion_tokens", 0)
        priced_cost += call.get("cost", 0.0)  # what the replies cost when they were made
        cost += 0.0 if call.get("cached") else call.get("cost", 0.0)  # what this run spent
    return Usage(
        replies,
        cached,
        sum(failures.values()),
        int(prompt_tokens),
        int(completion_tokens),
        cost,
        priced_cost,
        dict(sorted(failures.items())),
    )


def verdict_counts(entries: Sequence[MetricRecord]) -> MetricSummary:
    """Graded / null / not applicable / failed (by kind) over one metric's entries, the graded mean, and usage."""
    grades = [e.verdict.grade for e in entries if e.verdict.state is VerdictState.GRADE and e.verdict.grade is not None]
    kinds = Counter(
        e.verdict.failure_kind.value if e.verdict.failure_kind else None
        for e in entries
        if e.verdict.state is VerdictState.FAILURE
    )
    not_applicable = sum(not e.applicable for e in entries)
    return MetricSummary(
        n=len(entries),
        graded=len(grades),
        null=sum(e.verdict.state is VerdictState.NULL for e in entries) - not_applicable,
        not_applicable=not_applicable,
        failed=sum(kinds.values()),
        failure_kinds={str(k): v for k, v in sorted(kinds.items(), key=lambda kv: str(kv[0]))},
        mean=statistics.fmean(grades) if grades else None,
        stdev=statistics.stdev(grades) if len(grades) > 1 else None,
        usage=call_usage(c for e in entries for c in e.calls),
    )


def outcome_rates(outcomes: Iterable[Outcome | None]) -> dict[str, Any]:
    """Pass and wrong-grade rates over the tests that completed; run failures counted beside, never as wrong."""
    values = list(outcomes)
    count = Counter(values)
    completed = count[Outcome.PASS] + count[Outcome.WRONG_GRADE]
    return {
        "completed": completed,
        "passed": count[Outcome.PASS],
        "wrong_grades": count[Outcome.WRONG_GRADE],
        "failures": count[Outcome.FAILURE],
        "pass_rate": count[Outcome.PASS] / completed if completed else None,
        "wrong_grade_rate": count[Outcome.WRONG_GRADE] / completed if completed else None,
        "failure_rate": count[Outcome.FAILURE] / len(values) if values else None,
    }


def metric_names(records: Sequence[ItemRecord]) -> list[str]:
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.metrics))
    return list(names)


def summarize(records: Sequence[ItemRecord], kind: str) -> Summary:
    """Everything a report shows, computed from the records alone (so a summary always matches its results.jsonl).

    Every run: per metric, the verdict counts and mean grade, and usage. Unit-test runs (records with outcomes)
    also get pass / wrong-grade rates over completed tests, failure counts, the total (mean of the metrics' pass
    rates), per test type, and stability over repeated draws.
    """
    first_draw = [r for r in records if r.draw == 0]
    metrics: dict[str, MetricSummary] = {}
    unit_tests = kind == "unit_tests"
    for metric in metric_names(records):
        entries = [r.metrics[metric] for r in first_draw if metric in r.metrics]
        metrics[metric] = verdict_counts(entries)
        if unit_tests:
            metrics[metric] = dataclasses.replace(metrics[metric], **outcome_rates(e.outcome for e in entries))
    usage = call_usage(c for r in records for c in r.calls())
    if not unit_tests:
        return Summary(len(first_draw), metrics, usage)
    rates = [m.pass_rate for m in metrics.values() if m.pass_rate is not None]
    return Summary(
        len(first_draw),
        metrics,
        usage,
        total_pass_rate=statistics.fmean(rates) if rates else None,
        completed_tests=sum(all(e.outcome is not Outcome.FAILURE for e in r.metrics.values()) for r in first_draw),
        tests_passing_all=sum(r.passed_all for r in first_draw),
        wrong_grades=sum(m.wrong_grades or 0 for m in metrics.values()),
        failures=sum(m.failures or 0 for m in metrics.values()),
        by_test_type=by_test_type(first_draw),
        stability=stability(records),
    )


def median_latency(records: Sequence[ItemRecord]) -> float | None:
    """Median seconds per answered call, as measured when each reply was made (the cache keeps that latency), so
    a warm cache does not make a judge look fast; None when no call recorded one."""
    latencies = [c["latency_s"] for r in records for c in r.calls() if "error" not in c and c.get("latency_s")]
    return statistics.median(latencies) if latencies else None


def by_test_type(records: Sequence[ItemRecord]) -> dict[str, TypeSummary]:
    groups: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        groups[record.test_type or "-"].append(record)
    out = {}
    for test_type, group in sorted(groups.items()):
        rates = {
            m: outcome_rates(r.metrics[m].outcome for r in group)["pass_rate"]
            for m in ALL_METRICS
            if m in group[0].metrics
        }
        defined = [v for v in rates.values() if v is not None]
        out[test_type] = TypeSummary(len(group), rates, statistics.fmean(defined) if defined else None)
    return out


def stability(records: Sequence[ItemRecord]) -> Stability | None:
    """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
    by_test: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_test[record.id].append(record)
    repeated = [group for group in by_test.values() if len(group) > 1]
    if not repeated:
        return None
    out: dict[str, MetricStability] = {}
    for metric in metric_names(records):
        variances, flips = [], 0
        for group in repeated:
            grades = [r.metrics[metric].value for r in group]
            graded = [g for g in grades if g is not None]
            if len(graded) > 1:
                variances.append(statistics.pvariance(graded))
            flips += len({r.metrics[metric].outcome is Outcome.PASS for r in group}) > 1
        out[metric] = MetricStability(statistics.fmean(variances) if variances else None, flips / len(repeated))
    return Stability(len(repeated), max(len(g) for g in repeated), out)
