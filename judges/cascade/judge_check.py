"""The calibrated judge checked against the judge now at work: a run folder's identity (`cascade apply`), the config
and prompts before any call and each fresh reply's model name and fingerprint (`evaluate --cascade`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from judges.calls.backend import Completion
from judges.cascade.calibration_schema import CalibratedJudge, Calibration
from judges.cascade.sources import Judge
from judges.config.judge import JudgeConfig
from judges.errors import ConfigError
from judges.judging.planned_identity import planned_identity
from judges.records.judge_identity import changed_line, for_metric

FLAG = "--accept-changed-judge"


def unchecked_note(calibration: Calibration, path: str) -> bool:
    """One stderr note when the calibration records no judge identity (format_version 1): nothing to check."""
    if calibration.format_version >= 2:
        return False
    print(
        f"judgelab: {path} is of format_version 1 and records no judge identity: the judge is not checked "
        "(calibrate again to record it)",
        file=sys.stderr,
    )
    return True


def accepted(line: str) -> str:
    """The record's note of a changed judge the user let through."""
    return f"Judge changed since calibration, accepted with {FLAG}: {line.split(': re-calibrate')[0]}."


def check_sources(calibration: Calibration, path: str, judges: Sequence[Judge], *, accept: bool) -> list[str]:
    """Each run-folder judge's identity against its calibration's: a change is one line, exit 2, unless `accept`
    (then a note for summary.md). A predictions file carries no identity and is not checked."""
    if unchecked_note(calibration, path):
        return []
    notes = []
    for entry, judge in zip(calibration.judges, judges, strict=True):
        if entry.identity is None or judge.run_config is None:
            continue
        before, now = for_metric(entry.identity, calibration.metric), for_metric(judge.identity, calibration.metric)
        if line := changed_line(entry.name, before, now):
            if not accept:
                raise ConfigError(line)
            notes.append(accepted(line))
    return notes


class ReplyWatch:
    """Each fresh reply of one calibrated judge's run: the first naming a model or fingerprint the calibration never
    saw stops the run (`refused` its line) unless accepted (then `notes` says so, once)."""

    def __init__(self, entry: CalibratedJudge, *, accept: bool) -> None:
        self.entry, self.accept = entry, accept
        self.refused: str | None = None
        self.notes: list[str] = []

    def __call__(self, completion: Completion) -> None:
        if self.entry.identity is None or self.refused:
            return
        now = self.entry.identity.answered_by(completion.served_model, completion.system_fingerprint)
        line = changed_line(self.entry.name, self.entry.identity, now)
        if not line:
            return
        if self.accept:
            if (note := accepted(line)) not in self.notes:
                self.notes.append(note)
            return
        self.refused = line
        raise ConfigError(line)


def check_before_calls(entry: CalibratedJudge, config: JudgeConfig, draws: int, metric: str, *, accept: bool) -> str:
    """The judge `config` would run against its calibration, before any call (the model asked for, the metric's
    prompt hash, the decoding): a change is one line, exit 2, unless `accept` (then the note; "" when unchanged)."""
    if entry.identity is None:
        return ""
    before = for_metric(entry.identity, metric)
    now = for_metric(planned_identity(config, draws), metric)
    line = changed_line(entry.name, before, now)  # a planned identity knows no reply yet
    if line and not accept:
        raise ConfigError(line)
    return accepted(line) if line else ""
