"""A calibration's files: calibration.json (what `cascade apply` reads), calibration.md (its first line the
decision), calibration.html (the same with the picture inline)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judges.cascade.calibration_schema import (
    FORMAT_VERSION,
    calibration_text,
    endpoint_without_credentials,
    without_credentials,
    write_atomically,
)
from judges.cascade.chain import Calibrated
from judges.cascade.verdicts import shown_number
from judges.pages.markdown import grid
from judges.pages.page_template import render_page
from judges.runs.run_config import RunConfig

METHOD = (
    "fixed-sequence testing from the most confident down, exact binomial test of the kept items' disagreement "
    "(Jung, Brahman and Choi, Trust or Escalate, ICLR 2025)"
)


def judge_record(step: Calibrated, n_items: int) -> dict[str, Any]:
    """One judge's part of calibration.json."""
    chosen = step.choice.chosen
    record: dict[str, Any] = {
        "name": step.judge.name,
        "source": step.judge.source,
        "threshold": step.choice.threshold,
        "offered": step.choice.offered,
        "kept": step.kept,
        "share_of_items": shown_number(step.kept / n_items) if n_items else None,
        "agreement": shown_number(chosen.agreement) if chosen else None,
        "disagreement_upper_bound": shown_number(chosen.upper_bound) if chosen else None,
        "cost_per_item_usd": step.judge.cost_per_item,
        "identity": step.judge.identity.to_json(),
    }
    if step.judge.run_config is not None and step.judge.run_config.judge:
        record["run_config"] = kept_run_config(step.judge.run_config)
    return record


def kept_run_config(config: RunConfig) -> dict[str, Any]:
    """What calibration.json keeps of a judge's run config: the judge, its endpoint without credentials (the run
    takes them from the environment or the flags), its prompts, decoding and draws; no credential in any form."""
    bases = config.api_base
    stripped = [endpoint_without_credentials(url) for url in ([bases] if isinstance(bases, str) else bases or [])]
    kept: dict[str, Any] = {
        "judge": config.judge,
        "api_base": None if not stripped else stripped[0] if isinstance(bases, str) else stripped,
        "prompts": config.prompts,
        "params": {k: v for k, v in (config.params or {}).items() if k != "credentials"},
        "json_schema": config.json_schema,
        "draws": config.draws or 1,
    }
    return without_credentials(kept)  # type: ignore[no-any-return]


def calibration_record(
    steps: Sequence[Calibrated], *, settings: dict[str, Any], labels: dict[str, Any]
) -> dict[str, Any]:
    """calibration.json: the settings (target, delta, the cut, label type, metric), the labels, and every judge."""
    n_items = int(labels["count"])
    judges = [judge_record(step, n_items) for step in steps]
    escalated = n_items - sum(j["kept"] for j in judges)
    return {
        "format_version": FORMAT_VERSION,
        "method": METHOD,
        **settings,
        "labels": labels,
        "judges": judges,
        "escalated": escalated,
        "escalated_share": shown_number(escalated / n_items) if n_items else None,
    }


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def headline(record: dict[str, Any]) -> str:
    """The line a person acts on: who decides what share at what agreement, and what goes to people."""
    n = record["labels"]["count"]
    judges = record["judges"]
    first, rest = judges[0], judges[1:]
    target, confidence = percent(record["target"], 1), percent(1 - record["delta"], 1)
    parts = [
        f"{first['name']} decides {percent(first['kept'], n)} of items at >= {target} agreement ({confidence} confidence)"
    ]
    parts += [f"{j['name']} {percent(j['kept'], n)} more" for j in rest]
    parts.append(f"{percent(record['escalated'], n)} go to people")
    return "; ".join(parts)


def cost_line(record: dict[str, Any]) -> str:
    """Cost per 1,000 items of the cascade (each judge pays for the items that reach it) against the last judge
    alone, when every judge's run carries its cost."""
    judges, n = record["judges"], record["labels"]["count"]
    costs = [j["cost_per_item_usd"] for j in judges]
    if not n or any(c is None for c in costs):
        return "Cost: not measured (a predictions file carries no cost; run folders do)."
    cascade = sum(1000 * c * j["offered"] / n for c, j in zip(costs, judges, strict=True))
    return (
        f"Cost per 1,000 items: ${cascade:.4f} with the cascade against ${1000 * costs[-1]:.4f} with "
        f"{judges[-1]['name']} alone (priced calls of the runs, per item graded)."
    )


def judge_rows(record: dict[str, Any]) -> list[list[Any]]:
    def shown(value: float | None, digits: int = 4) -> str:
        return "-" if value is None else f"{value:.{digits}g}"

    return [
        [
            j["name"],
            "keeps nothing" if j["threshold"] is None else f">= {j['threshold']:.6g}",
            j["offered"],
            j["kept"],
            percent(j["kept"], record["labels"]["count"]),
            shown(j["agreement"]),
            shown(j["disagreement_upper_bound"]),
        ]
        for j in record["judges"]
    ]


HEADERS = [
    "judge",
    "confidence threshold",
    "items reaching it",
    "kept",
    "share of all",
    "agreement",
    "disagreement bound",
]


def explanation(record: dict[str, Any]) -> list[str]:
    delta, target = record["delta"], record["target"]
    return [
        f"With probability at least {1 - delta:g} over the draw of these {record['labels']['count']} labelled items, "
        f"the verdicts each judge keeps on new items like them agree with people at least {target:g} of the time: "
        f"each judge's threshold is the lowest confidence at which the exact binomial upper bound ({1 - delta:g} "
        f"one-sided) of its kept items' disagreement stays at or below {1 - target:g}, found by {record['method']}.",
        f"Testing starts at the highest confidence keeping at least {record['min_kept']} items; a judge whose first "
        "test fails keeps nothing (the reference code keeps its 30 most confident items then, which breaks the "
        "guarantee; judgelab does not).",
        f"Labels: {record['labels']['name']} ({record['labels']['count']} items, SHA-256 "
        f"`{record['labels']['sha256'][:16]}`); metric {record['metric']}, label type {record['label_type']}, "
        f"cut {record['cut']:g}.",
    ]


def write_calibration(out: Path, record: dict[str, Any], picture: Path) -> list[Path]:
    """calibration.json, calibration.md and calibration.html (the picture inline) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path, html_path = out / "calibration.json", out / "calibration.md", out / "calibration.html"
    write_atomically(json_path, calibration_text(record))
    lines = [headline(record), "", cost_line(record), "", grid(HEADERS, judge_rows(record)), ""]
    lines += [line for text in explanation(record) for line in (text, "")]
    lines.append(f"![kept share against agreement]({picture.name})")
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    html_path.write_text(
        render_page(
            "cascade.html.jinja",
            headline=headline(record),
            cost=cost_line(record),
            headers=HEADERS,
            rows=judge_rows(record),
            notes=explanation(record),
            picture=base64.b64encode(picture.read_bytes()).decode(),
        ),
        encoding="utf-8",
    )
    return [json_path, md_path, picture, html_path]
