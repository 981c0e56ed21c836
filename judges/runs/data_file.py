"""The samples file a run graded, found from its config (as given, or beside the run folder)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from judges.errors import InputError

if TYPE_CHECKING:
    from judges.runs.run import Run


def data_file(run: Run) -> Path:
    """The file of `config.data`, as given or relative to the run folder; an InputError when there is none."""
    data = run.config.data
    if not data:
        raise InputError("the run does not say which samples file it graded (config.data)", path=str(run.folder))
    for candidate in (Path(data), (run.folder or Path()) / data):
        if candidate.is_file():
            return candidate
    raise InputError(f"the samples file the run graded, {data}, cannot be found", path=str(run.folder))
