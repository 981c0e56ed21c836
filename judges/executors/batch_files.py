"""Batch input files in the OpenAI batch-line format, one model per file, split at the provider's limits."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.executors.rows import Row

MAX_LINES = 50_000  # OpenAI's limit per batch input file
MAX_BYTES = 200 * 1024 * 1024  # and its size limit
ENDPOINT = "/v1/chat/completions"


@dataclass(frozen=True)
class Chunk:
    """The rows of one batch input file: one model, within the line and byte limits."""

    model: str
    rows: tuple[Row, ...]
    lines: tuple[bytes, ...]

    @property
    def size(self) -> int:
        return sum(len(line) for line in self.lines)


def batch_line(row: Row, body: dict[str, Any]) -> bytes:
    """One input line: the custom_id is the row's cache key; the body is the chat call the lean client sends."""
    line = {"custom_id": row.custom_id, "method": "POST", "url": ENDPOINT, "body": body}
    return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")


def chunks(
    rows: Sequence[Row],
    body_of: Callable[[Row], dict[str, Any]],
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
) -> Iterator[Chunk]:
    """The rows grouped by model, in order, cut into files of at most `max_lines` lines and `max_bytes` bytes."""
    by_model: dict[str, list[Row]] = {}
    for row in rows:
        by_model.setdefault(row.model, []).append(row)
    for model, group in by_model.items():
        picked: list[Row] = []
        lines: list[bytes] = []
        size = 0
        for row in group:
            line = batch_line(row, body_of(row))
            if len(line) > max_bytes:
                raise ValueError(f"one batch line is {len(line):,} bytes, over the file limit of {max_bytes:,}")
            if picked and (len(picked) == max_lines or size + len(line) > max_bytes):
                yield Chunk(model, tuple(picked), tuple(lines))
                picked, lines, size = [], [], 0
            picked.append(row)
            lines.append(line)
            size += len(line)
        if picked:
            yield Chunk(model, tuple(picked), tuple(lines))


def write_chunk(chunk: Chunk, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.writelines(chunk.lines)
    return path
