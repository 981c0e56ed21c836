"""The tuning report: base versus tuned on train and on test with intervals, the gap, flipped tests, the cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.judging.prompts import load_prompt_set
from judges.pages.markdown import pct, table
from judges.runs.intervals import wilson
from judges.runs.run import Run
from judges.runs.run_compare import changes
from judges.suite.pass_interval import total_interval
from judges.tuning.manifest import write_tuning_report
from judges.tuning.pipeline import TuneOutcome

NEVER_USED = (
    "The test split was never used to choose: the search ran on the train split only, the test split was read "
    "after the tuned folder was written, and the base and the tuned prompts ran on it once each."
)


def figures(run: Run, metric: str) -> dict[str, Any]:
    """A metric's pass rate over the run's completed tests, with its Wilson interval."""

    stats = run.summary.metrics[metric]
    low, high = wilson(stats.passed or 0, stats.completed or 0)
    return {
        "pass_rate": stats.pass_rate,
        "passed": stats.passed,
        "n": stats.completed,
        "format_failures": stats.failures,
        "ci95": [low, high],
    }


def total(run: Run) -> dict[str, Any]:
    low, high = total_interval(r for r in run.iter_records() if r.draw == 0)
    return {"pass_rate": run.summary.total_pass_rate, "n": run.summary.completed_tests, "ci95": [low, high]}


def _gap(train: dict[str, Any], test: dict[str, Any]) -> float | None:
    if train["pass_rate"] is None or test["pass_rate"] is None:
        return None
    return float(train["pass_rate"] - test["pass_rate"])


def build_report(outcome: TuneOutcome) -> dict[str, Any]:
    runs = outcome.runs
    rows: dict[str, Any] = {}
    for metric in [*outcome.metrics, "total"]:
        entry: dict[str, Any] = {}
        for side in ("base", "tuned"):
            train, test = (
                total(runs[f"{side}-{split}"]) if metric == "total" else figures(runs[f"{side}-{split}"], metric)
                for split in ("train", "test")
            )
            entry[side] = {"train": train, "test": test, "train_minus_test": _gap(train, test)}
        rows[metric] = entry
    flipped = {
        split: [
            {"test": test, "metric": metric, "base": before, "tuned": after}
            for test, metric, before, after in changes(runs[f"base-{split}"], runs[f"tuned-{split}"])
        ]
        for split in ("train", "test")
    }
    config = runs["base-train"].config
    return {
        "judge": config.judge,
        "base_prompts": outcome.base_prompts,
        "tuned_prompts": str(outcome.tuned_folder),
        "metrics": outcome.metrics,
        "decoding": {"chosen": outcome.chosen_decoding, "overrides": outcome.decoding_choices[outcome.chosen_decoding]},
        "figures": rows,
        "flipped": flipped,
        "search": {
            "metrics": {
                s.metric: {
                    "candidates": [c.name for c in s.candidates],
                    "examples_from_train": s.examples,
                    "search_tests": s.eval_tests,
                    "rounds": [r.to_dict() for r in s.halving.rounds],
                    "chosen": s.winner.name,
                    "ended": s.halving.ended,
                    "message": s.halving.message,
                }
                for s in outcome.searches
            },
            "decoding_rounds": None if outcome.decoding is None else [r.to_dict() for r in outcome.decoding.rounds],
            "budget": outcome.budget,
            **outcome.search_ledger.to_dict(),
        },
        "test_runs": outcome.report_ledger.to_dict(),
        "test_split": {
            "file": str(outcome.test_file),
            "sha256": outcome.test_sha256,
            "n_tests": runs["base-test"].summary.n_items,
            "statement": NEVER_USED,
        },
    }


def _cell(figure: dict[str, Any]) -> str:
    low, high = figure["ci95"]
    interval = "" if low is None else f" [{100 * low:.0f}, {100 * high:.0f}]"
    return f"{pct(figure['pass_rate'])}{interval}"


def _points(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f} pts"


def report_markdown(report: dict[str, Any]) -> str:
    search = report["search"]
    lines = [
        f"# judgelab tune: {report['judge']}",
        "",
        f"Base prompts `{report['base_prompts']}`; tuned prompts written to `{report['tuned_prompts']}` (use it with "
        "`--prompts`). Metrics tuned: " + ", ".join(report["metrics"]) + ".",
        "",
        "## Base versus tuned (pass rate, 95% interval: Wilson per metric, bootstrap for the total)",
        "",
        table(
            [
                {
                    "metric": metric,
                    "base train": _cell(entry["base"]["train"]),
                    "tuned train": _cell(entry["tuned"]["train"]),
                    "base test": _cell(entry["base"]["test"]),
                    "tuned test": _cell(entry["tuned"]["test"]),
                    "train-test gap, base": _points(entry["base"]["train_minus_test"]),
                    "train-test gap, tuned": _points(entry["tuned"]["train_minus_test"]),
                }
                for metric, entry in report["figures"].items()
            ]
        ),
    ]
    decoding = report["decoding"]
    if decoding["overrides"]:
        lines += ["", f"Decoding chosen: {decoding['chosen']} (pass the same options to `meta-eval`)."]
    for split in ("train", "test"):
        flips = report["flipped"][split]
        gained = sum(f["tuned"] == "pass" for f in flips)
        lines += ["", f"## Flipped on {split}: {len(flips)} ({gained} now pass, {len(flips) - gained} now do not)", ""]
        if flips:
            lines.append(table(flips))
    lines += ["", "## The search (train split only)", ""]
    lines += _search_lines(search)
    budget = search["budget"]
    limit = (
        f"--budget-calls {budget['budget_calls']}"
        if budget.get("budget_calls") is not None
        else f"--max-cost {budget['max_cost']} USD"
    )
    lines += [
        f"Search cost ({limit}): {search['calls_needed']} distinct calls needed, {search['new_calls']} sent to the "
        f"model this time ({search['cached_calls']} answered by the cache), ${search['cost_usd']:.4f}, "
        f"over {search['runs']} runs. The two test-split runs: {report['test_runs']['new_calls']} calls sent, "
        f"${report['test_runs']['cost_usd']:.4f}.",
        "",
        "## The test split",
        "",
        f"`{report['test_split']['file']}`, {report['test_split']['n_tests']} tests, SHA-256 "
        f"`{report['test_split']['sha256']}`.",
        "",
        report["test_split"]["statement"],
    ]
    return "\n".join(lines) + "\n"


def _search_lines(search: dict[str, Any]) -> list[str]:
    """Each metric's search: the choice, its candidates, and every halving round's scores."""
    lines: list[str] = []
    for metric, entry in search["metrics"].items():
        lines += [
            f"### {metric}: chose `{entry['chosen']}` ({entry['ended']}{'; ' + entry['message'] if entry['message'] else ''})",
            "",
            f"{len(entry['candidates'])} candidates on {entry['search_tests']} train tests"
            + (
                f" (examples from {', '.join(entry['examples_from_train'])} left out)"
                if entry["examples_from_train"]
                else ""
            )
            + ".",
            "",
        ]
        for index, round_ in enumerate(entry["rounds"], start=1):
            lines += [f"Round {index}: {round_['tests']} tests, kept {', '.join(round_['kept']) or 'none'}", ""]
            lines.append(
                table(
                    [
                        {
                            "candidate": s["candidate"],
                            "pass": "n/a" if s["no_figure"] else f"{s['passed']}/{s['n']}",
                            "pass rate": f"n/a ({s['no_figure']})" if s["no_figure"] else _cell(s),
                            "tokens": s["tokens"],
                            "template chars": s["template_chars"],
                        }
                        for s in round_["scores"]
                    ]
                )
            )
            lines.append("")
    return lines


def write_report(outcome: TuneOutcome, out: Path) -> dict[str, Any]:
    report = build_report(outcome)
    write_tuning_report(out, report, report_markdown(report), outcome.tuned_folder, manifest_of(report, outcome))
    return report


def manifest_of(report: dict[str, Any], outcome: TuneOutcome) -> dict[str, Any]:
    """Where the tuned folder came from (base templates, the train split) and its pass rates on the test split."""
    import hashlib

    train_file = outcome.test_file.with_name("train.jsonl")
    return {
        "made_by": "judgelab tune",
        "judge": report["judge"],
        "base_prompts": outcome.base_prompts,
        "base_sha256": load_prompt_set(outcome.base_prompts).hashes(),
        "search_data_sha256": hashlib.sha256(train_file.read_bytes()).hexdigest(),
        "search_items": outcome.runs["base-train"].summary.n_items,
        "held_out_items": report["test_split"]["n_tests"],
        "decoding": report["decoding"],
        "held_out": {
            metric: {
                "statistic": "pass_rate",
                "base": entry["base"]["test"]["pass_rate"],
                "tuned": entry["tuned"]["test"]["pass_rate"],
                "difference": {"value": _difference(entry)},
            }
            for metric, entry in report["figures"].items()
        },
        "report": str(outcome.tuned_folder.parent / "report.md"),
    }


def _difference(entry: dict[str, Any]) -> float | None:
    base, tuned = entry["base"]["test"]["pass_rate"], entry["tuned"]["test"]["pass_rate"]
    return None if base is None or tuned is None else float(tuned - base)
