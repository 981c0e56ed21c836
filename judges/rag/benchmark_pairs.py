"""A judge benchmark's pairs read as samples for `judgelab metrics --metrics pairwise_preference` (LLMBar,
JudgeBench, MT-Bench), each with the item id `judgelab agreement --format` gives its labels, so the run folder is
scored on the benchmark's own labels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judges.agreement.pairwise_formats import FORMATS, detect, detect_spec, need, rows_of
from judges.agreement.pairwise_readers import mtbench_models, mtbench_vote
from judges.errors import InputError
from judges.types import Sample

Reader = Callable[[list[dict[str, Any]], str], list[Sample]]


def _text(row: dict[str, Any], name: str, number: int, source: str) -> str:
    value = need(row, name, number, source)
    if not isinstance(value, str):
        raise InputError(f"row {number}: {name!r} must be a string", path=source, line=number, field=name)
    return value


def llmbar_samples(rows: list[dict[str, Any]], source: str) -> list[Sample]:
    """LLMBar's `dataset.json`: the instruction, output_1 as the sample's answer (A), output_2 as the alternative
    (B); ids by position ("0", "1", ...) as LLMBar's labels are matched."""
    return [
        Sample(
            id=str(number),
            input=_text(row, "input", number, source),
            actual_output=_text(row, "output_1", number, source),
            alternative_output=_text(row, "output_2", number, source),
        )
        for number, row in enumerate(rows)
    ]


def judgebench_samples(rows: list[dict[str, Any]], source: str) -> list[Sample]:
    """JudgeBench's pairs: the question, response_A (A) and response_B (B), by pair_id."""
    return [
        Sample(
            id=str(need(row, "pair_id", number, source)),
            input=_text(row, "question", number, source),
            actual_output=_text(row, "response_A", number, source),
            alternative_output=_text(row, "response_B", number, source),
        )
        for number, row in enumerate(rows)
    ]


def _turns(row: dict[str, Any], side: str, number: int, source: str) -> tuple[list[str], list[str]]:
    """A conversation's user and assistant turns."""
    conversation = need(row, f"conversation_{side}", number, source)
    if not isinstance(conversation, list) or not all(isinstance(m, dict) for m in conversation):
        raise InputError(f"row {number}: conversation_{side} must list messages", path=source, line=number)
    said = [(str(m.get("role")), str(m.get("content") or "")) for m in conversation]
    return [t for r, t in said if r == "user"], [t for r, t in said if r == "assistant"]


def mtbench_samples(rows: list[dict[str, Any]], source: str) -> list[Sample]:
    """MT-Bench human judgments: one sample per item (question, the two models in name order, turn), the first
    vote's conversations read: the user's questions up to the turn as the input, each model's reply at that turn
    (the earlier replies, which differ by model, are not shown)."""
    samples: dict[str, Sample] = {}
    for number, row in enumerate(rows):
        item, _, turn = mtbench_vote(row, number, source)
        if item in samples:
            continue
        questions, replies_a = _turns(row, "a", number, source)
        _, replies_b = _turns(row, "b", number, source)
        at = int(turn) if turn.isdigit() else 1
        if at < 1 or len(questions) < at or len(replies_a) < at or len(replies_b) < at:
            raise InputError(f"row {number}: the conversations have no turn {turn}", path=source, line=number)
        first, second = replies_a[at - 1], replies_b[at - 1]
        if mtbench_models(row)[0] != str(row["model_a"]):
            first, second = second, first
        samples[item] = Sample(
            id=item, input="\n\n".join(questions[:at]), actual_output=first, alternative_output=second
        )
    return list(samples.values())


READERS: dict[str, Reader] = {"llmbar": llmbar_samples, "judgebench": judgebench_samples, "mtbench": mtbench_samples}


def benchmark_format(spec: str, fmt: str | None) -> str | None:
    """The released format `--data` is in: the one named, else the shape of a local file's first row; None for a
    samples file of judgelab's own."""
    return fmt or detect_spec(spec)


def benchmark_samples(spec: str, fmt: str, limit: int | None = None) -> list[Sample]:
    """The benchmark's pairs as samples (answer A as the set gives it first), the first `limit` of them."""
    rows, source = rows_of(spec)
    shown = detect(rows[0]) if rows else None
    if fmt not in FORMATS or (shown is not None and shown != fmt):
        raise InputError(f"not {fmt} rows (they look like {shown or 'none of ' + ', '.join(FORMATS)})", path=spec)
    if fmt not in READERS:
        raise InputError(
            "RewardBench is scored best of n from a reward model's score per answer; pairwise_preference compares "
            "two answers and does not run on it",
            path=spec,
        )
    if not rows:
        raise InputError("no rows", path=spec)
    return READERS[fmt](rows, source)[:limit]
