"""summary.md of a run: the figures as Markdown tables (tabulate), and the items the judge got wrong or failed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judges.runs.summary import SHORT

if TYPE_CHECKING:
    from judges.runs.run import Run

MAX_LISTED = 40  # failing tests listed in summary.md (all of them are in results.jsonl)


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def table(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of rows (dicts with the same keys), through tabulate (pandas would cost its import)."""
    from tabulate import tabulate

    if not rows:
        return ""
    return str(tabulate(rows, headers="keys", tablefmt="github", missingval=""))


def grid(headers: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table from a header row and rows of cells (headers may repeat), through tabulate."""
    from tabulate import tabulate

    cells = [[str(c).replace("|", "\\|").replace("\n", " ") for c in row] for row in rows]
    return str(tabulate(cells, headers=headers, tablefmt="github", disable_numparse=True))


def failures_line(summary: dict[str, Any]) -> str:
    usage = summary.get("usage", {})
    return (
        f"Calls: {usage.get('calls', 0)} ({usage.get('cached_calls', 0)} from cache, "
        f"{usage.get('failed_calls', 0)} failed); tokens: {usage.get('prompt_tokens', 0)} prompt + "
        f"{usage.get('completion_tokens', 0)} completion; cost: ${usage.get('cost', 0.0):.4f}."
    )


def summary_markdown(run: Run) -> str:
    from judges.runs.stops import stop_note

    summary, config = run.summary, run.config
    lines = [f"# judgelab {run.kind.replace('_', ' ')}: {run.title}", ""]
    note = stop_note(run)
    if note is not None:
        lines += [f"**{note[0]}:** {note[1]}", ""]
    lines += [
        f"{summary.get('n_items', 0)} items from {config.get('data', '-')}"
        + (f" (split {config['split']})" if config.get("split") else "")
        + ".",
        "",
    ]
    if run.kind == "unit_tests":
        lines += _unit_test_tables(run)
    elif run.kind == "probes":
        from judges.probes.render import probe_markdown

        lines += probe_markdown(run)
    else:
        lines += _verdict_table(summary, config.get("metric_info") or {})
    lines += ["", failures_line(summary)]
    return "\n".join(lines) + "\n"


def _unit_test_tables(run: Run) -> list[str]:
    summary = run.summary
    rows = [
        {
            "metric": metric,
            "pass": pct(s["pass_rate"]),
            "wrong grade": pct(s["wrong_grade_rate"]),
            "run failures": s["failures"],
            "completed": s["completed"],
            "n": s["n"],
        }
        for metric, s in summary["metrics"].items()
    ]
    rests = rests_on_failures(summary)
    rows.append(
        {
            "metric": "**total (mean of the pass rates)**",
            "pass": f"**{pct(summary['total_pass_rate'])}**" + (" †" if rests else ""),
            "wrong grade": "",
            "run failures": summary["failures"],
            "completed": "",
            "n": "",
        }
    )
    lines = [
        "Pass and wrong-grade rates are over the tests that completed; a run failure (a call or parse "
        "failure, or a step upstream of it failing) is counted apart, never as a wrong grade.",
        "",
        table(rows),
    ]
    if rests:
        lines += ["", f"† {rests}"]
    if summary.get("stability"):
        repeats = summary["stability"]
        lines += [
            "",
            f"## Stability ({repeats['draws']} draws of {repeats['tests']} tests)",
            "",
            table(
                [
                    {
                        "metric": m,
                        "mean grade variance": "n/a"
                        if s["mean_grade_variance"] is None
                        else f"{s['mean_grade_variance']:.3f}",
                        "pass/fail flip rate": pct(s["flip_rate"]),
                    }
                    for m, s in repeats["metrics"].items()
                ]
            ),
        ]
    lines += [
        "",
        "## By test type",
        "",
        table(
            [
                {
                    "test type": t,
                    "n": s["n"],
                    **{SHORT.get(m, m): pct(v) for m, v in s["pass_rates"].items()},
                    "total": pct(s["total"]),
                    "run failures": s.get("failures", 0),
                }
                for t, s in summary["by_test_type"].items()
            ]
        ),
    ]
    from judges.runs.failures import RAW_SHOWN, misses, one_line

    wrong = misses(run.records)
    if wrong:
        lines += [
            "",
            f"## Tests not passed ({len(wrong)} test x metric outcomes)",
            "",
            table(
                [
                    {
                        "test": m.test,
                        "type": m.test_type,
                        "metric": SHORT.get(m.metric, m.metric),
                        "grade expected": m.expected,
                        "grade given": m.given,
                        "outcome": m.outcome,
                        "reason (or the raw reply)": one_line(m.justification, RAW_SHOWN + 20).replace("|", "\\|"),
                    }
                    for m in wrong[:MAX_LISTED]
                ]
            ),
        ]
        if len(wrong) > MAX_LISTED:
            lines += ["", f"And {len(wrong) - MAX_LISTED} more: see report.html."]
    return lines


def rests_on_failures(summary: dict[str, Any]) -> str | None:
    """The note a total carries when failed verdicts were left out of the rates it averages (None when none)."""
    failures = summary.get("failures") or 0
    if not failures:
        return None
    worst = max(summary["metrics"].items(), key=lambda pair: pair[1].get("failures", 0))
    return (
        f"the total rests on {summary.get('completed_tests', 0)} of {summary.get('n_items', 0)} tests: "
        f"{failures} verdicts failed and are left out of the rates (most in {worst[0]}: {worst[1]['failures']} of "
        f"{worst[1]['n']})"
    )


def given(verdict: dict[str, Any]) -> str:
    if verdict["state"] == "grade":
        grade = verdict["grade"]
        return str(int(grade)) if float(grade).is_integer() else f"{grade:g}"
    if verdict["state"] == "null":
        return "null"
    return f"failure: {verdict.get('failure_kind')}"


def _verdict_table(summary: dict[str, Any], info: dict[str, Any]) -> list[str]:
    rows = []
    for metric, s in summary["metrics"].items():
        kinds = ", ".join(f"{k} {v}" for k, v in s["failure_kinds"].items())
        about = info.get(metric, {})
        described = (
            {"family": about["family"], "better": "higher" if about["higher_is_better"] else "lower"} if about else {}
        )
        rows.append(
            {
                "metric": metric,
                **described,
                "mean": "n/a" if s["mean"] is None else f"{s['mean']:.3f}",
                "graded": s["graded"],
                "null": s["null"],
                "not applicable": s["not_applicable"],
                "failed": f"{s['failed']}" + (f" ({kinds})" if kinds else ""),
                "n": s["n"],
            }
        )
    return [table(rows)]
