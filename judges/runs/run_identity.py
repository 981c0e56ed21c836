"""The judge identity of a verdicts' source: a run folder's (as its run.json records it, or built from its config
and records), or a predictions file's (every field null: a file made elsewhere says nothing of its judge)."""

from __future__ import annotations

from pathlib import Path

from judges.records.judge_identity import JudgeIdentity, predictions_identity, recorded_identity
from judges.runs.run import Run
from judges.runs.run_writer import FolderRecorder


def run_identity(run: Run) -> JudgeIdentity:
    """The run's judge identity."""
    return recorded_identity(run.config.to_json(), (call for record in run.iter_records() for call in record.calls()))


def source_identity(source: str | Path) -> JudgeIdentity:
    """The identity of the judge of `source`: a run folder's, or a predictions file's null fields."""
    path = Path(source)
    return run_identity(FolderRecorder(path).load()) if path.is_dir() else predictions_identity()
