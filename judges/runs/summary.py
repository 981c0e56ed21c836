"""The one summarizer of a run's records: verdict counts per metric, unit-test outcomes, usage, and Markdown."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from judges.types import ALL_METRICS, Outcome

SHORT = {
    "answer_relevancy": "AR",
    "completeness": "C",
    "faithfulness": "F",
    "usefulness": "U",
    "positive_acceptance": "PA",
    "negative_rejection": "NR",
}
USAGE_KEYS = ("calls", "cached_calls", "failed_calls", "prompt_tokens", "completion_tokens", "cost", "priced_cost")


def call_usage(calls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Totals over call records: replies (and how many came from the cache), failed calls (no reply, or a reply
    that could not be used) by kind, tokens, cost."""
    out: dict[str, Any] = dict.fromkeys(USAGE_KEYS, 0.0)
    failures: Counter[str] = Counter()
    for call in calls:
        if "error" in call:
            failures[call["error"]] += 1
            continue
        if call.get("unusable"):
            failures[call["unusable"]] += 1
        out["calls"] += 1
        out["cached_calls"] += bool(call.get("cached"))
        out["prompt_tokens"] += call.get("prompt_tokens", 0)
        out["completion_tokens"] += call.get("completion_tokens", 0)
        out["priced_cost"] += call.get("cost", 0.0)  # what the replies cost when they were made
        out["cost"] += 0.0 if call.get("cached") else call.get("cost", 0.0)  # what this run spent
    out["failed_calls"] = sum(failures.values())
    out = {k: (v if k in ("cost", "priced_cost") else int(v)) for k, v in out.items()}
    out["failures"] = dict(sorted(failures.items()))
    return out


def verdict_counts(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Graded / null / not applicable / failed (by kind) over one metric's entries, and the graded mean."""
    verdicts = [e["verdict"] for e in entries]
    grades = [v["grade"] for v in verdicts if v["state"] == "grade"]
    kinds = Counter(v.get("failure_kind") for v in verdicts if v["state"] == "failure")
    not_applicable = sum(e.get("applicable") is False for e in entries)
    return {
        "n": len(entries),
        "graded": len(grades),
        "null": sum(v["state"] == "null" for v in verdicts) - not_applicable,
        "not_applicable": not_applicable,
        "failed": sum(kinds.values()),
        "failure_kinds": dict(sorted(kinds.items())),
        "mean": statistics.fmean(grades) if grades else None,
        "stdev": statistics.stdev(grades) if len(grades) > 1 else None,
    }


def outcome_rates(outcomes: Iterable[str]) -> dict[str, Any]:
    """Pass and wrong-grade rates over the tests that completed; run failures counted beside, never as wrong."""
    values = list(outcomes)
    count = Counter(values)
    completed = count[Outcome.PASS.value] + count[Outcome.WRONG_GRADE.value]
    return {
        "n": len(values),
        "completed": completed,
        "passed": count[Outcome.PASS.value],
        "wrong_grades": count[Outcome.WRONG_GRADE.value],
        "failures": count[Outcome.FAILURE.value],
        "pass_rate": count[Outcome.PASS.value] / completed if completed else None,
        "wrong_grade_rate": count[Outcome.WRONG_GRADE.value] / completed if completed else None,
        "failure_rate": count[Outcome.FAILURE.value] / len(values) if values else None,
    }


def metric_names(records: Sequence[Mapping[str, Any]]) -> list[str]:
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record["metrics"]))
    return list(names)


def summarize(records: Sequence[Mapping[str, Any]], kind: str) -> dict[str, Any]:
    """Everything a report shows, computed from the records alone (so a summary always matches its results.jsonl).

    Every run: per metric, the verdict counts and mean grade, and usage. Unit-test runs (records with outcomes)
    also get pass / wrong-grade rates over completed tests, failure counts, the total (mean of the metrics' pass
    rates), per test type, and stability over repeated draws.
    """
    first_draw = [r for r in records if r.get("draw", 0) == 0]
    metrics: dict[str, dict[str, Any]] = {}
    unit_tests = kind == "unit_tests"
    for metric in metric_names(records):
        entries = [r["metrics"][metric] for r in first_draw if metric in r["metrics"]]
        metrics[metric] = verdict_counts(entries)
        metrics[metric]["usage"] = call_usage(c for e in entries for c in e.get("calls", []))
        if unit_tests:
            metrics[metric].update(outcome_rates(e["outcome"] for e in entries))
    summary: dict[str, Any] = {
        "n_items": len(first_draw),
        "metrics": metrics,
        "usage": call_usage(c for r in records for c in item_calls(r)),
    }
    if unit_tests:
        rates = [m["pass_rate"] for m in metrics.values() if m["pass_rate"] is not None]
        summary.update(
            {
                "total_pass_rate": statistics.fmean(rates) if rates else None,
                "completed_tests": sum(
                    all(e["outcome"] != "failure" for e in r["metrics"].values()) for r in first_draw
                ),
                "tests_passing_all": sum(
                    all(e["outcome"] == "pass" for e in r["metrics"].values()) for r in first_draw
                ),
                "wrong_grades": sum(m["wrong_grades"] for m in metrics.values()),
                "failures": sum(m["failures"] for m in metrics.values()),
                "by_test_type": by_test_type(first_draw),
            }
        )
        repeats = stability(records)
        if repeats is not None:
            summary["stability"] = repeats
    if kind == "probes":
        from judges.probes.analysis import probe_summary

        summary["probes"] = probe_summary(records)
    return summary


def median_latency(records: Sequence[Mapping[str, Any]]) -> float | None:
    """Median seconds per answered call, as measured when each reply was made (the cache keeps that latency), so
    a warm cache does not make a judge look fast; None when no call recorded one."""
    latencies = [c["latency_s"] for r in records for c in item_calls(r) if "error" not in c and c.get("latency_s")]
    return statistics.median(latencies) if latencies else None


def item_calls(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """An item's calls, each once (metrics that share a step list the same calls)."""
    seen: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for entry in record["metrics"].values():
        for call in entry.get("calls", []):
            seen.setdefault(call.get("call", id(call)), call)
    return list(seen.values())


def by_test_type(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record.get("test_type") or "-"].append(record)
    out = {}
    for test_type, group in sorted(groups.items()):
        rates = {
            m: outcome_rates(r["metrics"][m]["outcome"] for r in group)["pass_rate"]
            for m in ALL_METRICS
            if m in group[0]["metrics"]
        }
        defined = [v for v in rates.values() if v is not None]
        failures = sum(e["outcome"] == "failure" for r in group for e in r["metrics"].values())
        out[test_type] = {
            "n": len(group),
            "pass_rates": rates,
            "total": statistics.fmean(defined) if defined else None,
            "failures": failures,
        }
    return out


def stability(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
    by_test: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        by_test[record["id"]].append(record)
    repeated = [group for group in by_test.values() if len(group) > 1]
    if not repeated:
        return None
    out: dict[str, Any] = {"tests": len(repeated), "draws": max(len(g) for g in repeated), "metrics": {}}
    for metric in metric_names(records):
        variances, flips = [], 0
        for group in repeated:
            grades = [
                r["metrics"][metric]["verdict"]["grade"]
                for r in group
                if r["metrics"][metric]["verdict"]["state"] == "grade"
            ]
            if len(grades) > 1:
                variances.append(statistics.pvariance(grades))
            flips += len({r["metrics"][metric]["outcome"] == "pass" for r in group}) > 1
        out["metrics"][metric] = {
            "mean_grade_variance": statistics.fmean(variances) if variances else None,
            "flip_rate": flips / len(repeated),
        }
    return out
