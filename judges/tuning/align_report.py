"""The report of `tune --labels`: base and tuned once on the held-out items (intervals, the paired difference,
what a constant judge scores), the cost of the search and of one judged item, and the tuned folder's manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.pages.markdown import table
from judges.tuning.align import AlignOutcome
from judges.tuning.align_data import subset
from judges.tuning.align_measure import (
    CONSTANT,
    agreement,
    graded_share,
    paired_difference,
    per_item_usage,
    run_predictions,
    statistic_value,
    ungraded,
)
from judges.tuning.manifest import write_tuning_report

NEVER_USED = (
    "The held-out items were never used to choose: the search, its few-shot examples and the decoding choice used "
    "the search items only; the held-out items were judged after the tuned folder was written, once by each folder."
)


def _measured(labels: Any, predictions: Any, resamples: int) -> Any:
    """`measure`'s result, or None when the judge graded no held-out item (every verdict null or failed)."""

    try:
        return agreement(labels, predictions, resamples)
    except InputError:
        return None


def _side(result: Any, statistic: str, predictions: Any, labels: Any, usage: dict[str, float]) -> dict[str, Any]:
    figure = next((f for f in result.judge if f.statistic == statistic), None) if result is not None else None
    ids = sorted({i.id for i in labels.items})
    return {
        "value": None if figure is None else figure.value,
        "ci95": list(figure.ci) if figure is not None and figure.ci else None,
        "no_figure": ungraded(labels, predictions),
        "graded_share": graded_share(predictions, ids),
        "per_item": usage,
        "all_figures": [] if result is None else [f.to_dict() for f in result.judge],
    }


def held_out_figures(outcome: AlignOutcome) -> dict[str, Any]:
    """Per metric: base and tuned on the held-out items with 95% bootstrap intervals, and tuned minus base."""
    out: dict[str, Any] = {}
    runs = outcome.runs
    for search, labels in zip(outcome.searches, outcome.sets, strict=True):
        held = subset(labels, outcome.split.held_out)
        ids = sorted({i.id for i in held.items})
        base = run_predictions(runs["base-held-out"], search.template)
        tuned = run_predictions(runs["tuned-held-out"], search.template)
        resamples = outcome.job.resamples
        base_result, tuned_result = _measured(held, base, resamples), _measured(held, tuned, resamples)
        ceilings = base_result.ceiling if base_result is not None else []
        ceiling = next((f for f in ceilings if f.statistic == search.statistic), None)
        on_search = {
            side: statistic_value(
                subset(labels, outcome.split.search),
                run_predictions(runs[f"{side}-search"], search.template),
                search.statistic,
            )
            for side in ("base", "tuned")
        }
        out[search.metric] = {
            "template": search.template,
            "statistic": search.statistic,
            "n_items": len(ids),
            "base": _side(base_result, search.statistic, base, held, per_item_usage(runs["base-held-out"])),
            "tuned": _side(tuned_result, search.statistic, tuned, held, per_item_usage(runs["tuned-held-out"])),
            "difference": paired_difference(held, base, tuned, search.statistic, resamples=resamples),
            "constant_judge": CONSTANT[search.statistic],
            "human_ceiling": None if ceiling is None else ceiling.value,
            "on_search_items": on_search,
        }
    return out


def build_report(outcome: AlignOutcome) -> dict[str, Any]:
    job = outcome.job
    return {
        "judge": job.options.model,
        "base_prompts": job.options.prompts,
        "tuned_prompts": str(outcome.tuned_folder),
        "labels": {"spec": job.labels, "name": outcome.labels.name, "source": outcome.labels.source},
        "split": {**outcome.split.to_dict(), "held_out_share": job.held_out, "seed": job.seed, "limit": job.limit},
        "held_out": held_out_figures(outcome),
        "decoding": {"chosen": outcome.chosen_decoding, "overrides": outcome.overrides},
        "search": {
            "metrics": {
                s.metric: {
                    "template": s.template,
                    "statistic": s.statistic,
                    "candidates": [c.name for c in s.candidates],
                    "examples_shown": s.examples,
                    "search_items": s.eval_items,
                    "rounds": [r.to_dict("items") for r in s.halving.rounds],
                    "chosen": s.winner.name,
                    "ended": s.halving.ended,
                    "message": s.halving.message,
                }
                for s in outcome.searches
            },
            "decoding_rounds": None
            if outcome.decoding is None
            else [r.to_dict("items") for r in outcome.decoding.rounds],
            "budget": {"budget_calls": job.budget_calls, "max_cost": job.max_cost},
            **outcome.search_ledger.to_dict(),
        },
        "held_out_runs": outcome.report_ledger.to_dict(),
        "search_data_sha256": outcome.search_sha256,
        "statement": NEVER_USED,
    }


def manifest_of(report: dict[str, Any], outcome: AlignOutcome) -> dict[str, Any]:
    """Where the tuned folder came from and what it scored on the held-out items (the folder's manifest.json)."""
    return {
        "made_by": "judgelab tune --labels",
        "judge": report["judge"],
        "base_prompts": report["base_prompts"],
        "base_sha256": outcome.base_hashes,
        "labels": report["labels"],
        "search_data_sha256": outcome.search_sha256,
        "search_items": outcome.split.to_dict()["search_items"],
        "held_out_items": outcome.split.to_dict()["held_out_items"],
        "seed": outcome.job.seed,
        "decoding": report["decoding"],
        "held_out": {
            metric: {
                "template": entry["template"],
                "statistic": entry["statistic"],
                "base": entry["base"]["value"],
                "tuned": entry["tuned"]["value"],
                "difference": entry["difference"],
            }
            for metric, entry in report["held_out"].items()
        },
        "report": str(outcome.job.out / "report.md"),
    }


def _figure(value: float | None, ci: list[float] | None = None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def _side_figure(side: dict[str, Any]) -> str:
    return f"n/a ({side['no_figure']})" if side["no_figure"] else _figure(side["value"], side["ci95"])


def _difference_line(difference: dict[str, Any]) -> str:
    if difference["value"] is None:
        return f"Tuned minus base: n/a ({difference['reason']})."
    both = difference.get("n_items", 0)
    dropped = difference.get("n_held_out", 0) - both
    return (
        f"Tuned minus base, paired bootstrap on the same items (the {both} both graded"
        + (f"; {dropped} failed or null on one side, left out" if dropped else "")
        + f"): {_figure(difference['value'])} [{_figure(difference['ci_low'])}, {_figure(difference['ci_high'])}]."
    )


def _usage(side: dict[str, Any]) -> dict[str, str]:
    per = side["per_item"]
    return {
        "calls / item": f"{per['calls']:.2f}",
        "tokens / item": f"{per['tokens']:.0f}",
        "USD / item": f"{per['cost_usd']:.6f}",
    }


def conclusion(entry: dict[str, Any]) -> str:
    difference = entry["difference"]
    if difference["value"] is None:
        return f"No paired difference ({difference['reason']}): nothing can be concluded."
    low, high = difference["ci_low"], difference["ci_high"]
    if low is None or high is None:
        return "No interval for the difference (too few items, or one class only): nothing can be concluded."
    if low > 0:
        return "The interval of tuned minus base lies above 0: the tuned prompts agree better on items never searched."
    if high < 0:
        return "The interval lies below 0: the tuned prompts agree worse on the held-out items; keep the base."
    return (
        "The interval of tuned minus base holds 0: on these held-out items the tuning's gain is not told apart "
        "from chance."
    )


def _held_out_lines(metric: str, entry: dict[str, Any]) -> list[str]:
    """One metric on the held-out items: base, tuned, a constant judge and the ceiling, the difference, the reading."""
    statistic = entry["statistic"]
    rows = [
        {"prompts": side, f"{statistic} (95% CI)": _side_figure(entry[side]),
         "graded": f"{100 * entry[side]['graded_share']:.0f}%", **_usage(entry[side])}
        for side in ("base", "tuned")
    ]  # fmt: skip
    rows.append({"prompts": "a constant judge", f"{statistic} (95% CI)": _figure(entry["constant_judge"])})
    if entry["human_ceiling"] is not None:
        rows.append({"prompts": "human ceiling", f"{statistic} (95% CI)": _figure(entry["human_ceiling"])})
    difference = entry["difference"]
    search = entry["on_search_items"]
    return [
        "",
        f"## {metric} on the {entry['n_items']} held-out items (template {entry['template']})",
        "",
        table([{k: r.get(k, "") for k in rows[0]} for r in rows]),
        "",
        _difference_line(difference),
        "",
        conclusion(entry),
        "",
        f"On the search items: base {_figure(search['base'])}, tuned {_figure(search['tuned'])} (chosen there, "
        "so optimistic).",
    ]


def report_markdown(report: dict[str, Any]) -> str:
    split = report["split"]
    lines = [
        f"# judgelab tune --labels: {report['judge']}",
        "",
        f"Labels `{report['labels']['spec']}` ({report['labels']['name']}); base prompts `{report['base_prompts']}`; "
        f"tuned prompts written to `{report['tuned_prompts']}` (use it with `--prompts`; its manifest.json says "
        "where it came from).",
        "",
        f"Split (seed {split['seed']}): {split['search_items']} items searched, {split['held_out_items']} held out"
        + (
            f", by system (held out: {', '.join(split['held_out_systems'])})"
            if split["by_system"]
            else " (the items name no systems: split by item)"
        )
        + ".",
    ]
    for metric, entry in report["held_out"].items():
        lines += _held_out_lines(metric, entry)
    decoding = report["decoding"]
    if decoding["overrides"]:
        lines += ["", f"Decoding chosen: {decoding['chosen']} (pass the same options wherever the folder is used)."]
    lines += ["", "## The search (search items only)", ""]
    for metric, entry in report["search"]["metrics"].items():
        shown = ", ".join(entry["examples_shown"]) or "none"
        lines += [
            f"### {metric}: chose `{entry['chosen']}` ({entry['ended']}"
            + (f"; {entry['message']}" if entry["message"] else "")
            + ")",
            "",
            f"{len(entry['candidates'])} candidates scored on {entry['search_items']} items; examples (the items the "
            f"base got most wrong, left out of the scoring): {shown}.",
            "",
        ]
        for number, round_ in enumerate(entry["rounds"], start=1):
            lines += [f"Round {number}: {round_['items']} items, kept {', '.join(round_['kept']) or 'none'}", ""]
            lines.append(
                table(
                    [
                        {"candidate": s["candidate"],
                         s["statistic"]: f"n/a ({s['no_figure']})" if s["no_figure"] else _figure(s["value"]),
                         "tokens": s["tokens"], "template chars": s["template_chars"]}
                        for s in round_["scores"]
                    ]
                )
            )  # fmt: skip
            lines.append("")
    search, held = report["search"], report["held_out_runs"]
    lines += [
        f"Search cost: {search['calls_needed']} distinct calls needed, {search['new_calls']} sent to the model this "
        f"time ({search['cached_calls']} answered by the cache), ${search['cost_usd']:.4f}, over {search['runs']} runs. "
        f"The two held-out runs: {held['new_calls']} calls sent, ${held['cost_usd']:.4f}.",
        "",
        f"Search data SHA-256 `{report['search_data_sha256']}`; every search-phase call is listed in "
        "`search/calls.jsonl`.",
        "",
        report["statement"],
    ]
    return "\n".join(lines) + "\n"


def write_align_report(outcome: AlignOutcome, out: Path) -> dict[str, Any]:
    report = build_report(outcome)
    write_tuning_report(out, report, report_markdown(report), outcome.tuned_folder, manifest_of(report, outcome))
    return report
