"""The typed parts of a run's header in run.json beside its config: the kind of run (its registered name) and its
timing."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from judges.records.usage import known_fields

# Why a run ended before its last item, or finished degraded: a budget spent, an unusable endpoint, a broken cache,
# another judgelab error, Ctrl-C, more failed verdicts than --fail-on-error allows, or a bug
StopReason = Literal["budget", "endpoint_unusable", "cache", "error", "interrupted", "degraded", "crash"]
STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)


def stop_reason(value: object) -> StopReason | None:
    """A stop reason read back from run.json (None: the run finished); a value judgelab never writes is refused."""
    if value is None:
        return None
    for reason in STOP_REASONS:
        if value == reason:
            return reason
    raise ValueError(f"unknown stop_reason {value!r}; one of {', '.join(STOP_REASONS)}")


def run_kind(name: object) -> str:
    """A kind read back from run.json: its name, as registered under `judgelab.kinds` (judgelab's own and a
    plug-in's alike; an older folder's kind is the same string)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a run kind is a name, not {name!r}")
    return name


@dataclass(frozen=True)
class Timing:
    """When a run started and finished (UTC, ISO seconds), and how long it took."""

    started_at: str | None = None
    finished_at: str | None = None
    duration_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Timing:
        return cls(**known_fields(cls, data))
