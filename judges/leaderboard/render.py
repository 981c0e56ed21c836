"""Leaderboard files: Markdown, CSV (pandas) and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.leaderboard.columns import SYSTEM_AWARE, named, oriented
from judges.leaderboard.config_types import PASS_RATE
from judges.leaderboard.entries import Entry
from judges.leaderboard.select import NO_WINNER, Pick
from judges.pages.markdown import grid


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def interval(entry: Entry) -> str:
    return "" if entry.ci_low is None else f"[{entry.ci_low:.3f}, {entry.ci_high:.3f}]"


def shown_value(entry: Entry) -> str:
    """The value, or `n/a (why)`."""
    return _fmt(entry.value) if entry.value is not None else f"n/a ({entry.note or 'no figure'})"


def standing(entry: Entry) -> str:
    """ "2 [1, 3], group 1": the rank, its 95% interval over the resamples and the tie group; "" when not ranked."""
    if entry.rank is None or entry.rank_interval is None:
        return ""
    low, high = entry.rank_interval
    return f"{entry.rank} [{low}, {high}], group {entry.cluster}"


def latency(entry: Entry) -> str:
    if entry.latency_s_per_uncached_call is not None:
        return f"{entry.latency_s_per_uncached_call:.2f}"
    if entry.kind == "baseline":
        return "n/a (no model call)"
    if entry.kind == "predictions" or not entry.cost_measured:
        return "not measured"
    return "n/a (no uncached call recorded)"


def cost(entry: Entry) -> str:
    """USD per 1,000 calls, or `not measured` for predictions made elsewhere whose source records no cost."""
    return f"{entry.cost_per_1k_calls:.4f}" if entry.cost_measured else "not measured"


def plain(entry: Entry) -> str:
    """The plain figure shown beside a system-aware one (`spearman 0.580`), or empty."""
    return f"{entry.plain_statistic} {_fmt(entry.plain_value)}" if entry.plain_statistic else ""


def pick_row(pick: Pick, with_plain: bool = False) -> dict[str, str]:
    """The columns of one pick, shared by the Markdown and HTML tables; `with_plain` adds the plain figure beside
    a system-aware one (when some evaluation's labels name systems)."""
    best = pick.winner
    base = pick.baseline
    system_aware = [s for s in pick.statistic.split(" / ") if s in SYSTEM_AWARE]
    decided = pick.test or "-"
    if system_aware and pick.test:
        decided = f"{' / '.join(system_aware)} (system-aware), {pick.test}"
    row = {
        "evaluation": pick.evaluation,
        "metric": pick.metric,
        "statistic": " / ".join(named(s) for s in pick.statistic.split(" / ")),
        "best judge": best.candidate if best else NO_WINNER if pick.reference else "-",
        "value": _fmt(best.value) if best else "-",
        "95% interval": interval(best) if best else "",
    }
    if with_plain:
        row["plain figure"] = plain(best) if best else ""
    return row | {
        "best baseline": f"{base.candidate} {_fmt(base.value)}" if base else "n/a (no baseline with a figure)",
        "decided by": decided,
        "why": pick.reason(),
    }


def any_plain(entries: list[Entry]) -> bool:
    return any(e.plain_statistic for e in entries)  # some evaluation's labels name systems


def markdown(entries: list[Entry], picks: list[Pick], meta: dict[str, Any]) -> str:
    lines = [
        "# judgelab leaderboard",
        "",
        f"Generated {meta['date']} by judgelab {meta['judgelab_version']} from "
        f"`{meta['config']}`. Figures with 95% intervals and the n they rest on. A judge is named best only "
        "when it beats the best baseline (a paired bootstrap on the same items where both rest on them, "
        "else its 95% interval's lower bound above the baseline's figure); ties go to the cheaper, then the "
        "faster by median latency per uncached call. A negative correlation or an AUROC below 0.5 never wins. "
        "Candidates resting on the same items are ranked on the same bootstrap resamples (the rank's 95% interval) "
        "and grouped: judges of one tie group cannot be told apart (paired bootstrap, Holm-corrected), so pick the "
        "cheapest of the top group that beats the baselines.",
        "",
        "## Best judge per evaluation and metric",
        "",
    ]
    with_plain = any_plain(entries)
    if picks:
        rows = [pick_row(p, with_plain) for p in picks]
        lines.append(grid(list(rows[0]), [list(row.values()) for row in rows]))
    lines += ["", "## Excluded candidates and why", ""]
    excluded = [[p.evaluation, p.metric, name, why] for p in picks for name, why in p.excluded.items()]
    lines.append(grid(["evaluation", "metric", "candidate", "why"], excluded))
    lines += ["", "## All figures", ""]
    lines.append(_figures_table(entries, with_plain))
    noted = [e for e in entries if e.note and e.value is not None]
    if noted:
        lines += ["", "## Notes on figures", ""]
        lines += [f"- {e.candidate} on {e.evaluation} ({e.metric}): {e.note}" for e in noted]
    lines += jury_lines(entries)
    lines += across_evaluations(meta.get("summary_rankings") or [])
    lines += ["", "## Judges", ""]
    what = meta.get("judges", {})
    judges = {
        e.candidate: [e.candidate, e.kind, e.model or "-", e.prompts or "-", e.prompt_sha or "-"] for e in entries
    }
    judges = {name: [*row, what.get(name, "-")] for name, row in judges.items()}
    lines.append(grid(["candidate", "kind", "model", "prompts", "prompt hash", "what it is"], list(judges.values())))
    lines += ["", "## Data", ""] + [f"- {name}: {info}" for name, info in meta["data"].items()]
    return "\n".join(lines) + "\n"


def _figures_table(entries: list[Entry], with_plain: bool) -> str:
    """Every entry's figure, by evaluation and metric, best first, with its ceiling, failure rate, calls and cost."""
    figures = []
    for e in sorted(
        entries, key=lambda e: (e.evaluation, e.metric, -oriented(e.statistic, e.value) if e.value is not None else 9)
    ):
        ceiling = (
            _fmt(e.ceiling)
            if e.ceiling is not None
            else "n/a (one annotator per item)"
            if e.statistic != PASS_RATE
            else "n/a (no human labels)"
        )
        failure = _fmt(e.failure_rate) if e.failure_rate is not None else "n/a (no verdicts)"
        figures.append(
            [
                e.evaluation,
                e.metric,
                e.candidate,
                e.kind,
                named(e.statistic),
                shown_value(e),
                interval(e),
                standing(e),
                *([plain(e)] if with_plain else []),
                e.n,
                ceiling,
                failure,
                e.calls,
                cost(e),
                latency(e),
            ]
        )
    return grid(
        [
            "evaluation",
            "metric",
            "candidate",
            "kind",
            "statistic",
            "value",
            "95% interval",
            "rank [95%], tie group",
            *(["plain figure"] if with_plain else []),
            "n",
            "human ceiling",
            "failure rate",
            "calls",
            "USD / 1k calls",
            "s / uncached call (median)",
        ],
        figures,
    )


def jury_lines(entries: list[Entry]) -> list[str]:
    """The juries' members and how independent their errors are (none when the board has no jury)."""
    juries = [e for e in entries if e.kind == "jury" and e.members]
    if not juries:
        return []
    rows = [
        [
            e.evaluation,
            e.metric,
            e.candidate,
            ", ".join(e.members or ()),
            _fmt(e.error_correlation) if e.error_correlation is not None else f"n/a ({e.error_note or 'no figure'})",
            _fmt(e.effective_members, 2) if e.effective_members is not None else f"n/a ({e.error_note or 'no figure'})",
            e.error_items if e.error_items is not None else "-",
        ]
        for e in juries
    ]
    head = ["evaluation", "metric", "jury", "members", "error correlation", "effective members", "items"]
    intro = (
        "The mean pairwise Pearson correlation of the members' errors (1/0 per item on unit tests and binary labels, "
        "the signed error on graded labels) over the items every member graded, and the number of independent "
        "members the jury is worth, n / (1 + (n - 1) * correlation)."
    )
    return ["", "## Juries", "", intro, "", grid(head, rows)]


def across_evaluations(rankings: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: per metric ranked on several evaluations, each candidate's mean rank with its interval."""
    lines = []
    for ranking in rankings:
        lines += ["", f"## Across evaluations: {ranking['metric']} ({', '.join(ranking['evaluations'])})", ""]
        rows = [
            [r["candidate"], f"{r['mean_rank']:.2f}", f"[{r['interval'][0]:.2f}, {r['interval'][1]:.2f}]"]
            for r in ranking["rows"]
        ]
        lines.append(grid(["candidate", "mean rank", "95% interval"], rows))
        lines += ["", "The mean of each candidate's rank on every evaluation; its interval over the resamples of each."]
    return lines


def pick_dict(pick: Pick) -> dict[str, Any]:
    return {
        "evaluation": pick.evaluation,
        "metric": pick.metric,
        "statistic": pick.statistic,
        "best": pick.winner.candidate if pick.winner else None,
        "why": pick.reason(),
        "decided_by": pick.test,
        "best_baseline": pick.baseline.candidate if pick.baseline else None,
        "reference": pick.reference,
        "leader": pick.leader.candidate if pick.leader else None,
        "tied": pick.tied,
        "excluded": pick.excluded,
    }


def write_tables(entries: list[Entry], picks: list[Pick], meta: dict[str, Any], out: Path) -> list[Path]:
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([e.to_dict(item_values=False) for e in entries])
    frame.to_csv(out / "leaderboard.csv", index=False)
    payload = {"meta": meta, "picks": [pick_dict(p) for p in picks], "entries": [e.to_dict() for e in entries]}
    (out / "leaderboard.json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    (out / "leaderboard.md").write_text(markdown(entries, picks, meta), encoding="utf-8")
    return [out / "leaderboard.csv", out / "leaderboard.json", out / "leaderboard.md"]
