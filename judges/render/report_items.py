"""The report's item table: one row per item and metric, with the calls behind it (prompt, raw reply) and, for
RAG-suite metrics, the intermediate steps (claims, verdicts, generated questions, chunk labels)."""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.pages.item_row import CallView, ItemRow, Thumbnail
from judges.pages.table import Cell, cell
from judges.records import ItemRecord, MetricRecord
from judges.render.report_prompts import PromptRenderer
from judges.render.sample_rows import answer_of, question_of
from judges.runs.failures import one_line, reason
from judges.runs.kinds import kind_of
from judges.runs.run import Run
from judges.types import Outcome, VerdictState

MAX_ROWS = 200  # item x metric rows on the page; every one stays in results.jsonl


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
    draws = run.config.draws or 1
    own = kind_of(run.kind).entry_headers(draws)  # a kind that gives each row (the unit-test kind's: per test)
    if own is not None:
        return own
    confidence = ["confidence"] if draws > 1 else []  # the share of draws that gave the verdict recorded
    return ["item", "question", "answer", "metric", "state", "grade", *confidence, "failure kind", "reason"]


@dataclass(frozen=True)
class Chosen:
    """The item x metric entries the page lists: every one when the run has at most MAX_ROWS; else the first
    MAX_ROWS (in item order) of those that did not pass, and the first of the others to fill the page; with how
    many there are of each."""

    entries: list[tuple[ItemRecord, str]]
    total: int
    not_passed: int
    shown_not_passed: int

    @property
    def only_not_passed(self) -> bool:
        return self.total > MAX_ROWS

    @property
    def left_out(self) -> int:
        return self.total - len(self.entries)


def _not_passed(entry: MetricRecord) -> bool:
    if entry.outcome is not None:
        return entry.outcome is not Outcome.PASS
    return entry.verdict.state is VerdictState.FAILURE


def chosen_entries(records: Iterable[ItemRecord], limit: int = MAX_ROWS) -> Chosen:
    """One pass over the records (streamed from results.jsonl), holding at most 2 x `limit` entries."""
    every: list[tuple[tuple[int, int, int], int, ItemRecord, str]] = []  # bounded max-heaps on negated keys
    missed: list[tuple[tuple[int, int, int], int, ItemRecord, str]] = []
    total = not_passed = 0
    for record in records:
        for index, (metric, entry) in enumerate(record.metrics.items()):
            total += 1
            key = (-record.draw, -record.order, -index)
            _bounded(every, (key, total, record, metric), limit)
            if _not_passed(entry):
                not_passed += 1
                _bounded(missed, (key, total, record, metric), limit)
    kept = every
    if total > limit:
        taken = {item[1] for item in missed}
        others = sorted((item for item in every if item[1] not in taken), key=lambda item: item[0], reverse=True)
        kept = missed + others[: limit - len(missed)]
    ordered = sorted(kept, key=lambda item: item[0], reverse=True)
    return Chosen([(record, metric) for _, _, record, metric in ordered], total, not_passed, len(missed))


def _bounded(heap: list[tuple[tuple[int, int, int], int, ItemRecord, str]], entry: Any, limit: int) -> None:
    """Keep `entry` in the max-heap of the `limit` earliest entries (keys negated, each key once), if it is one."""
    if len(heap) < limit:
        heapq.heappush(heap, entry)
    elif entry[0] > heap[0][0]:  # earlier than the latest kept: it takes that one's place
        heapq.heapreplace(heap, entry)


def item_rows(run: Run, entries: list[tuple[ItemRecord, str]], folder: Path | None = None) -> list[ItemRow]:
    """The chosen item x metric entries as table rows; image thumbnails link relative to `folder`."""
    prompts = PromptRenderer(run.config)
    draws = run.config.draws or 1
    kind = kind_of(run.kind)
    rows = []
    for record, metric in entries:
        sample = record.sample
        images = thumbnails(sample, folder)
        entry = record.metrics[metric]
        verdict = entry.verdict
        listed = entry.calls
        calls = [
            call_view(c, prompts, sample, reask=i > 0 and bool(listed[i - 1].get("unusable")))
            for i, c in enumerate(listed)
        ]
        own = kind.entry_row(record, metric, draws)  # a kind's own row (a unit test's: its condition and outcome)
        if own is not None:
            cells, data, shown_sample = own.cells, own.data, sample if own.shows_sample else None
        else:
            state = verdict.state.value
            cells = [
                cell(record.id),
                Cell(one_line(question_of(sample), 120), None, "justification"),
                Cell(one_line(answer_of(sample), 160), None, "justification"),
                cell(metric),
                Cell(state, state, state),
                cell(verdict.grade),
                *([cell(entry.confidence)] if draws > 1 else []),
                cell(verdict.failure_kind.value if verdict.failure_kind else "-"),
                Cell(reason(entry), None, "justification"),
            ]
            data, shown_sample = {"outcome": state, "metric": metric, "type": "-"}, sample
        rows.append(ItemRow(cells, data, calls, entry.details or None, shown_sample, images))
    return rows


def call_view(
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
