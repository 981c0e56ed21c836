"""Where a run's loop writes: the `RunWriter` protocol, and the run folder (run.json + results.jsonl) writing it."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Protocol

from judges.files.jsonl import append_jsonl
from judges.records import ItemRecord
from judges.runs.folder import save_run
from judges.runs.run import Run


class RunWriter(Protocol):
    """What the run loop writes through: `open` before the first item, `item` for each finished record (kept at
    once: nothing that completed is lost), `flush` when the loop ends (however it ends), `finish` with the Run."""

    @property
    def folder(self) -> Path | None:
        """The folder the run is written to, if any (an executor keeps its state for the run there)."""
        ...

    def open(self) -> None: ...

    def item(self, record: ItemRecord) -> None: ...

    def flush(self) -> None: ...

    def finish(self, run: Run) -> None: ...


class FolderWriter:
    """A run folder: results.jsonl streamed record by record (each line flushed as written), then run.json and the
    pages registered under `judgelab.pages` (summary.md, report.html)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._results: IO[str] | None = None

    @property
    def folder(self) -> Path:
        return self._folder

    def open(self) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)
        self._results = (self._folder / "results.jsonl").open("w", encoding="utf-8")

    def item(self, record: ItemRecord) -> None:
        if self._results is None:
            raise RuntimeError("FolderWriter.item before open")
        append_jsonl(self._results, record.to_json())

    def flush(self) -> None:
        """The loop has ended: every record is on disk and results.jsonl is closed."""
        if self._results is not None:
            self._results.close()
            self._results = None

    def finish(self, run: Run) -> None:
        """run.json and the pages, drawn from the run (results.jsonl closed first, if the loop did not)."""
        self.flush()
        save_run(run, self._folder)
