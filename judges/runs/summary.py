"""Aggregates unit-test results into pass rates (format failures apart from wrong grades) and writes reports."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from judges.types import ALL_METRICS, Outcome

SHORT = {"answer_relevancy": "AR", "completeness": "C", "faithfulness": "F", "usefulness": "U",
         "positive_acceptance": "PA", "negative_rejection": "NR"}


def rates(outcomes: Iterable[str]) -> dict[str, Any]:
    """Counts and rates of pass, wrong grade and format failure."""
    values = list(outcomes)
    n = len(values)
    count = {o.value: sum(v == o.value for v in values) for o in Outcome}
    share = (lambda k: count[k] / n if n else None)
    return {"n": n, "passed": count["pass"], "wrong_grade": count["fail"], "format_failures": count["format_failure"],
            "pass_rate": share("pass"), "wrong_grade_rate": share("fail"), "format_failure_rate": share("format_failure")}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass rates per metric, the total (mean of the six), per test type, and call usage per metric."""
    per_metric = {m: rates(r["metrics"][m]["outcome"] for r in rows) for m in ALL_METRICS}
    defined = [v["pass_rate"] for v in per_metric.values() if v["pass_rate"] is not None]
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_type[row["test_type"]].append(row)
    per_type = {}
    for test_type, group in by_type.items():
        metric_rates = {m: rates(r["metrics"][m]["outcome"] for r in group)["pass_rate"] for m in ALL_METRICS}
        per_type[test_type] = {"n": len(group), "pass_rates": metric_rates,
                               "total": sum(metric_rates.values()) / len(metric_rates)}
    usage: dict[str, dict[str, float]] = {}
    for metric in ALL_METRICS[:4]:
        entries = [r["metrics"][metric] for r in rows]
        usage[metric] = {key: sum(e.get(key, 0) for e in entries)
                         for key in ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "cost")}
    usage["total"] = {key: sum(u[key] for u in usage.values()) for key in usage["answer_relevancy"]}
    return {"n_tests": len(rows), "metrics": per_metric,
            "total_pass_rate": sum(defined) / len(defined) if defined else None,
            "format_failures": sum(v["format_failures"] for v in per_metric.values()),
            "wrong_grades": sum(v["wrong_grade"] for v in per_metric.values()),
            "tests_passing_all": sum(r["passed_all"] for r in rows), "by_test_type": per_type, "usage": usage}


def stability(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Over repeated draws of the same tests: mean grade variance and the rate at which pass/fail flips."""
    by_test: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_test[row["id"]].append(row)
    repeated = [group for group in by_test.values() if len(group) > 1]
    if not repeated:
        return None
    import statistics

    out: dict[str, Any] = {"tests": len(repeated), "draws": max(len(g) for g in repeated), "metrics": {}}
    for metric in ALL_METRICS:
        variances, flips = [], 0
        for group in repeated:
            grades = [r["metrics"][metric]["verdict"].get("grade") for r in group
                      if r["metrics"][metric]["verdict"]["state"] == "grade"]
            if len(grades) > 1:
                variances.append(statistics.pvariance(grades))
            flips += len({r["metrics"][metric]["outcome"] == "pass" for r in group}) > 1
        out["metrics"][metric] = {"mean_grade_variance": statistics.fmean(variances) if variances else None,
                                  "flip_rate": flips / len(repeated)}
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def markdown_summary(report: dict[str, Any]) -> str:
    run, summary = report["run"], report["summary"]
    lines = [f"# judgelab meta-eval: {run['judge']} with prompts {run['prompts']}", "",
             f"Unit tests: {summary['n_tests']} from {run['tests']} (split {run.get('split') or '-'}); "
             f"run {run['run_id']}.", "",
             "| metric | pass | wrong grade | format failure | n |", "|---|---|---|---|---|"]
    for metric, stats in summary["metrics"].items():
        lines.append(f"| {metric} | {_pct(stats['pass_rate'])} | {_pct(stats['wrong_grade_rate'])} | "
                     f"{_pct(stats['format_failure_rate'])} | {stats['n']} |")
    lines.append(f"| **total (mean of six)** | **{_pct(summary['total_pass_rate'])}** | | | |")
    usage = summary["usage"]["total"]
    lines += ["", f"Calls: {int(usage['calls'])} ({int(usage['cached_calls'])} from cache); tokens: "
              f"{int(usage['prompt_tokens'])} prompt + {int(usage['completion_tokens'])} completion; "
              f"cost: ${usage['cost']:.4f}."]
    if run.get("stopped"):
        lines += ["", f"**Stopped early:** {run['stopped']}; the tests above are those that finished."]
    if report.get("stability"):
        repeats = report["stability"]
        lines += ["", f"## Stability ({repeats['draws']} draws of {repeats['tests']} tests)", "",
                  "| metric | mean grade variance | pass/fail flip rate |", "|---|---|---|"]
        for metric, stats in repeats["metrics"].items():
            variance = "n/a" if stats["mean_grade_variance"] is None else f"{stats['mean_grade_variance']:.3f}"
            lines.append(f"| {metric} | {variance} | {_pct(stats['flip_rate'])} |")
    lines += ["", "## By test type", "",
              "| test type | n | " + " | ".join(SHORT.values()) + " | total |",
              "|---|---|" + "---|" * (len(SHORT) + 1)]
    for test_type, stats in sorted(summary["by_test_type"].items()):
        cells = " | ".join(_pct(stats["pass_rates"][m]) for m in SHORT)
        lines.append(f"| {test_type} | {stats['n']} | {cells} | {_pct(stats['total'])} |")
    return "\n".join(lines) + "\n"


def write_report(out_dir: Path, run: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    report = {"run": run, "summary": summarize(rows)}
    repeats = stability(rows)
    if repeats is not None:
        report["stability"] = repeats
    (out_dir / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    (out_dir / "summary.md").write_text(markdown_summary(report), encoding="utf-8")
    return report


def read_rows(results_path: Path) -> list[dict[str, Any]]:
    from judges.jsonl import read_jsonl

    return [row for _, row in read_jsonl(results_path)]
