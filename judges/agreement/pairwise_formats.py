"""Judge benchmarks' released files read as they are: the pairwise labels and verdicts, the format named or detected."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.jsonl import read_jsonl
from judges.labels.hub_sets import load_hub_rows

FORMATS = ("llmbar", "judgebench", "mtbench", "rewardbench")
Verdict = str | None  # "A", "B", "tie", or None: no verdict


@dataclass(frozen=True)
class PairLabels:
    """A benchmark's labels, one row per label (an item may have several, e.g. MT-Bench's expert votes)."""

    format: str
    source: str
    ids: tuple[str, ...]
    labels: tuple[str, ...]  # "A", "B" or "tie" (RewardBench: "A", the chosen answers)
    categories: tuple[str | None, ...]
    chosen: dict[str, int] = field(default_factory=dict)  # RewardBench: how many chosen answers each item has
    systems: tuple[tuple[str, str], ...] = ()  # per row, the systems of answers A and B, where the set names them


@dataclass(frozen=True)
class PairVerdicts:
    """A judge's verdicts by item id: one per order (given, swapped; named as in the given order), or one in all
    when the orders were already combined; RewardBench: the scores, chosen answers first."""

    format: str
    source: str
    verdicts: dict[str, tuple[Verdict, ...]] = field(default_factory=dict)
    scores: dict[str, tuple[float, ...]] = field(default_factory=dict)
    judge: str | None = None  # the judge's model name, where its file names it (a run folder; MT-Bench's `judge`)


def columns_to_rows(data: dict[str, Any], spec: str) -> list[dict[str, Any]]:
    """A JSON object of columns (RewardBench's released score files: `{"id": [...], "scores": [...], ...,
    "model": "..."}`) as rows; its single values (the model's name) are left out."""
    columns = {name: value for name, value in data.items() if isinstance(value, list)}
    lengths = {len(value) for value in columns.values()}
    if not columns or len(lengths) != 1:
        raise InputError("expected a JSON list of objects, or an object of equal-length columns", path=spec)
    return [{name: value[number] for name, value in columns.items()} for number in range(lengths.pop())]


def _read_json(path: Path, spec: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise InputError(f"not JSON: {err}", path=spec) from None
    if isinstance(data, dict):
        return columns_to_rows(data, spec)
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InputError("expected a JSON list of objects", path=spec)
    return data


def rows_of(spec: str) -> tuple[list[dict[str, Any]], str]:
    """The rows of a local JSON list (or object of columns) or JSON Lines file, an LLMBar folder, or a dataset
    `owner/name[:split]` read through `datasets`: a hub id (offline: one line saying so) or a local folder in the
    hub's layout (`data/<split>-00000-of-00001.parquet`); with the source named."""
    path = Path(spec)
    if path.is_dir():
        for name in ("dataset.json", "result.json"):
            if (path / name).is_file():
                return rows_of(str(path / name))
    if path.is_file():
        if path.suffix == ".jsonl":
            return [row for _, row in read_jsonl(path)], spec
        return _read_json(path, spec), spec
    repo, _, split = spec.partition(":")
    if not Path(repo).is_dir() and (repo.count("/") != 1 or repo.startswith((".", "/"))):
        raise InputError("no such file, and not a hub id (owner/name[:split])", path=spec)
    return load_hub_rows(repo, split or "train"), spec


def detect(row: dict[str, Any]) -> str | None:
    """The released format a row's shape shows, or None."""
    keys = set(row)
    if {"output_1", "output_2", "label"} <= keys:
        return "llmbar"
    if {"pair_id", "label"} <= keys:
        return "judgebench"
    if {"question_id", "model_a", "model_b", "winner"} <= keys:
        return "mtbench"
    if {"chosen", "rejected", "subset"} <= keys or ({"id", "scores"} <= keys and "winner" not in keys):
        return "rewardbench"
    return None


def detect_spec(spec: str) -> str | None:
    """The format of a local file or benchmark folder by the shape of its first row; None when not one of them."""
    path = Path(spec)
    if not (path.is_file() or (path.is_dir() and any((path / n).is_file() for n in ("dataset.json", "result.json")))):
        return None
    try:
        if path.is_file() and path.suffix == ".jsonl":  # the first row only: a labels file may hold millions
            first = next((row for _, row in read_jsonl(path)), None)
            return None if first is None else detect(first)
        rows, _ = rows_of(spec)
    except InputError:
        return None
    return detect(rows[0]) if rows else None


def need(row: dict[str, Any], name: str, number: int, source: str) -> Any:
    """A row's field, or one line naming the file, the row and the field."""
    if row.get(name) is None:
        raise InputError(f"row {number} has no {name!r}", path=source, line=number, field=name)
    return row[name]
