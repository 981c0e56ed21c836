"""The blind audit's score as Markdown: per probe, the graders' agreement with its declared expectations, the
Wilson interval, and beside it what a grader answering "same" to everything would agree on."""

from __future__ import annotations

import dataclasses
from typing import Any

from judges.probes.audit import AuditRow, AuditScore
from judges.render.markdown import pct, table

MAX_LISTED = 40


def _figures(row: AuditRow) -> dict[str, Any]:
    return {
        "probe": row.probe,
        "pairs": row.pairs,
        "judgements": row.n,
        "agree": row.agree,
        "agreement": pct(row.agree / row.n if row.n else None),
        "95% interval (Wilson)": "n/a" if row.low is None else f"[{pct(row.low)}, {pct(row.high)}]",
        'always "same"': pct(row.always_same),
    }


def audit_markdown(result: AuditScore) -> str:
    overall = result.overall
    rate = overall.agree / overall.n if overall.n else None
    verdict = (
        "no judgement yet"
        if rate is None
        else f"{overall.agree} of {overall.n} judgements ({pct(rate)}, 95% interval "
        f"[{pct(overall.low)}, {pct(overall.high)}]) agree with the probes' declared expectations"
    )
    lines = [
        f"# Blind probe audit: {len(result.graders)} grader(s) ({', '.join(result.graders)})",
        "",
        f'{verdict}. A grader who answers "same" everywhere would agree on {pct(overall.always_same)} of the same '
        "judgements: only the sensitivity probes' judgements tell a careful grader from that one.",
        "",
        table([_figures(row) for row in [*result.rows, overall]]),
    ]
    missed = [line for row in result.rows for line in row.disagreements]
    if missed:
        lines += ["", f"## Judgements that disagree ({len(missed)})", ""]
        lines += [f"- {line}" for line in missed[:MAX_LISTED]]
        if len(missed) > MAX_LISTED:
            lines.append(f"- and {len(missed) - MAX_LISTED} more (audit-score.json)")
    return "\n".join(lines) + "\n"


def audit_json(result: AuditScore) -> dict[str, Any]:
    return {
        "graders": result.graders,
        "overall": dataclasses.asdict(result.overall),
        "rows": [dataclasses.asdict(row) for row in result.rows],
    }
