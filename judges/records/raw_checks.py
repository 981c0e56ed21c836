"""The raw JSON of a run folder (run.json, each results.jsonl line) checked before the schema turns it into typed
records."""

from __future__ import annotations

from typing import Any

from judges.errors import InputError
from judges.files.checked import id_problem
from judges.records.header import STOP_REASONS


def check_meta(meta: dict[str, Any], path: str) -> None:
    """run.json's fields have the types a Run needs; otherwise one InputError naming the field."""
    if not isinstance(meta.get("kind"), str):
        raise InputError("expected a string", path=path, field="kind")
    for name in ("config", "summary", "usage", "timing"):
        if not isinstance(meta.get(name, {}), dict):
            raise InputError("expected an object", path=path, field=name)
    for name in ("stop_reason", "stop_message"):
        if not isinstance(meta.get(name), (str, type(None))):
            raise InputError("expected a string or null", path=path, field=name)
    if meta.get("stop_reason") not in (None, *STOP_REASONS):
        raise InputError(f"expected null or one of {', '.join(STOP_REASONS)}", path=path, field="stop_reason")


def check_record(row: dict[str, Any], path: str, line: int) -> None:
    """One results.jsonl record has an id, integer draw and order, and metrics whose verdicts have a state."""

    if id_problem(row.get("id")):
        raise InputError(str(id_problem(row.get("id"))), path=path, line=line, field="id")
    for name in ("draw", "order"):
        if isinstance(row.get(name, 0), bool) or not isinstance(row.get(name, 0), int):
            raise InputError("expected an integer", path=path, line=line, field=name)
    metrics = row.get("metrics")
    if not isinstance(metrics, dict):
        raise InputError("expected an object", path=path, line=line, field="metrics")
    for metric, entry in metrics.items():
        verdict = entry.get("verdict") if isinstance(entry, dict) else None
        if not isinstance(verdict, dict) or verdict.get("state") not in ("grade", "null", "failure"):
            raise InputError(
                "expected a verdict with a state (grade, null or failure)",
                path=path,
                line=line,
                field=f"metrics.{metric}.verdict",
            )
        grade = verdict.get("grade")
        if verdict["state"] == "grade" and (isinstance(grade, bool) or not isinstance(grade, (int, float))):
            raise InputError("a graded verdict needs a number", path=path, line=line, field=f"metrics.{metric}.grade")
        if not isinstance(entry.get("calls", []), list) or not all(isinstance(c, dict) for c in entry.get("calls", [])):
            raise InputError("expected a list of call records", path=path, line=line, field=f"metrics.{metric}.calls")
