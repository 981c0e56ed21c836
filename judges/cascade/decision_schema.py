"""decisions.jsonl's typed line: an item's id (text that UTF-8 can write), the judge that decided it, its call and
confidence (all three None: escalated); written through it, and read back through it, one line per problem."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judges.cascade.calibration_schema import name_problem, one_line
from judges.errors import InputError
from judges.files.jsonl import read_jsonl


def id_problem(value: object) -> str | None:
    """Why `value` cannot be an item's id in the cascade's files: None when it can (text, UTF-8 encodable)."""
    if not isinstance(value, str):
        return f"an item's id is text, got {type(value).__name__}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"an item's id is valid UTF-8 text; {value.encode('utf-8', 'backslashreplace').decode()!r} holds " + (
            f"a lone surrogate at character {err.start + 1}"
        )
    return None


class DecisionRecord(BaseModel):
    """One line of decisions.jsonl."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)

    id: str
    decided_by: str | None
    verdict: int | None
    confidence: Annotated[float, Field(ge=0, le=1)] | None = None
    timestamp: str | None = None  # ISO 8601, UTC: when `cascade apply` decided the batch (absent in older files)
    fingerprint: str | None = None  # the deciding judge's `system_fingerprint`, when its run recorded one
    slice: str | None = None  # the item's slice, when the cascade was calibrated per slice (--slice)

    @field_validator("timestamp")
    @classmethod
    def _a_time(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"an ISO 8601 time, e.g. 2026-11-27T09:30:00Z, got {value!r}") from None
        return value

    @field_validator("id")
    @classmethod
    def _text(cls, value: str) -> str:
        if problem := id_problem(value):
            raise ValueError(problem)
        return value

    @field_validator("decided_by")
    @classmethod
    def _a_name(cls, value: str | None) -> str | None:
        if value is not None and (problem := name_problem(value)):
            raise ValueError(problem)
        return value

    @classmethod
    def of(cls, record: dict[str, Any], path: str = "decisions.jsonl", line: int | None = None) -> DecisionRecord:
        """A checked line; a problem is one InputError naming the file, line and field."""
        try:
            return cls.model_validate(record)
        except ValidationError as err:
            problem = one_line(err, path)
            raise InputError(problem.message, path=path, line=line, field=problem.field) from None


def read_decisions(path: str | Path) -> Iterator[DecisionRecord]:
    """decisions.jsonl read back a line at a time, each line checked."""
    for line, record in read_jsonl(path):
        yield DecisionRecord.of(record, str(path), line)
