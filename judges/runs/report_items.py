"""The report's item table: one row per item and metric, with the calls behind it (prompt, raw reply) and, for
RAG-suite metrics, the intermediate steps (claims, verdicts, generated questions, chunk labels)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.pages.table import Cell, cell
from judges.runs.markdown import given
from judges.runs.report_prompts import PromptRenderer
from judges.runs.run import Run

OUTCOME_LABELS = {"pass": "pass", "wrong_grade": "wrong grade", "failure": "failure"}


@dataclass(frozen=True)
class CallView:
    """One call as the report shows it: what was sent (when it can be rendered again) and the raw reply."""

    template: str
    about: str
    prompt: str | None
    reply: str | None
    problem: str | None


@dataclass(frozen=True)
class ItemRow:
    cells: list[Cell]
    data: dict[str, str]
    calls: list[CallView] = field(default_factory=list)
    steps: Any = None
    sample: Mapping[str, Any] | None = None
    images: list[Thumbnail] = field(default_factory=list)


@dataclass(frozen=True)
class Thumbnail:
    """An image of the item's sample as the page shows it: a link to the file or URL (never its bytes)."""

    src: str | None  # None: a data URL of the data file, which the page does not repeat
    label: str


def thumbnails(sample: Mapping[str, Any] | None, folder: Path | None) -> list[Thumbnail]:
    """The sample's images: a local file by its path relative to the page's folder, a URL as is."""
    shown = []
    for image in (sample or {}).get("images") or []:
        label = f"{image.get('source')} (sha256 {str(image.get('sha256'))[:12]})"
        if image.get("path"):
            path = str(image["path"])
            shown.append(Thumbnail(os.path.relpath(path, folder) if folder is not None else path, label))
        else:
            shown.append(Thumbnail(image.get("url"), label))
    return shown


def headers(run: Run) -> list[str]:
    draws = run.config.get("draws", 1) or 1
    if run.kind == "unit_tests":
        return [
            "test",
            *(["draw"] if draws > 1 else []),
            "test type",
            "metric",
            "grade expected",
            "grade given",
            "outcome",
            "reason (or raw reply)",
        ]
    return ["item", "metric", "state", "grade", "failure kind", "justification or message"]


def item_rows(run: Run, folder: Path | None = None) -> list[ItemRow]:
    """Every item x metric of the run, in item order; image thumbnails link relative to `folder`."""
    prompts = PromptRenderer(run.config)
    draws = run.config.get("draws", 1) or 1
    rows = []
    for record in run.records:
        sample = record.get("sample")
        images = thumbnails(sample, folder)
        for metric, entry in record["metrics"].items():
            verdict = entry["verdict"]
            why = _why(entry)
            listed = entry.get("calls", [])
            calls = [
                _call_view(c, prompts, sample, reask=i > 0 and bool(listed[i - 1].get("unusable")))
                for i, c in enumerate(listed)
            ]
            if run.kind == "unit_tests":
                outcome = entry["outcome"]
                shown = OUTCOME_LABELS.get(outcome, outcome)
                if outcome == "failure":
                    shown = f"failure: {verdict.get('failure_kind')}"
                cells = [
                    cell(record["id"]),
                    *([cell(record.get("draw", 0))] if draws > 1 else []),
                    cell(record.get("test_type") or "-"),
                    cell(metric),
                    cell(entry.get("condition") or "-"),
                    cell(given(verdict), _grade_sort(verdict)),
                    Cell(shown, outcome, outcome),
                    Cell(why, None, "justification"),
                ]
                data = {"outcome": outcome, "metric": metric, "type": record.get("test_type") or "-"}
            else:
                state = verdict["state"]
                cells = [
                    cell(record["id"]),
                    cell(metric),
                    Cell(state, state, state),
                    cell(verdict.get("grade")),
                    cell(verdict.get("failure_kind") or "-"),
                    Cell(why, None, "justification"),
                ]
                data = {"outcome": state, "metric": metric, "type": "-"}
            shown_sample = sample if run.kind != "unit_tests" else None
            rows.append(ItemRow(cells, data, calls, entry.get("details"), shown_sample, images))
    return rows


def _why(entry: Mapping[str, Any]) -> str:
    from judges.runs.failures import reason

    return reason(entry)


def _grade_sort(verdict: Mapping[str, Any]) -> float:
    return float(verdict["grade"]) if verdict["state"] == "grade" else -1.0


def _call_view(
    call: Mapping[str, Any], prompts: PromptRenderer, sample: Mapping[str, Any] | None, *, reask: bool
) -> CallView:
    about = [f"call {call.get('call', '?')}"]
    if reask:
        about.append("asked again: the prompt below, then the unusable reply and its error")
    if call.get("prompt_sha256"):
        about.append(f"template sha256 {str(call['prompt_sha256'])[:12]}")
    if call.get("cached"):
        about.append("from the cache")
    if "prompt_tokens" in call:
        about.append(f"{call.get('prompt_tokens', 0)} + {call.get('completion_tokens', 0)} tokens")
    if call.get("latency_s") is not None:
        about.append(f"{call['latency_s']:.2f} s")
    problem = None
    if "error" in call:
        problem = f"no reply ({call['error']}): {call.get('message', '')}".rstrip(": ")
    elif call.get("unusable"):
        problem = f"unusable reply ({call['unusable']}): {call.get('parse_error', '')}".rstrip(": ")
    return CallView(
        str(call.get("template", "?")), ", ".join(about), prompts.render(call, sample), call.get("reply"), problem
    )
