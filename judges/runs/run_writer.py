"""The one seam a run is written and read through: the `Recorder` protocol, and the run folder (run.json +
results.jsonl) its one implementation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from judges.files.jsonl import append_jsonl
from judges.records import ItemRecord, Summary
from judges.runs.folder import save_run
from judges.runs.run import Run, read_records


class Recorder(Protocol):
    """Where a run goes and where it is read back from. Writing (the run loop): `open` before the first item, `item`
    for each finished record (kept at once: nothing that completed is lost), `flush` when the loop ends (however it
    ends), `finish` with the Run. Reading: `load` the Run (its config typed), its `items` one by one, its `summary`."""

    @property
    def folder(self) -> Path | None:
        """The folder the run is written to, if any (an executor keeps its state for the run there)."""
        ...

    def open(self) -> None: ...

    def item(self, record: ItemRecord) -> None: ...

    def flush(self) -> None: ...

    def finish(self, run: Run) -> None: ...

    def load(self) -> Run: ...

    def items(self) -> Iterator[ItemRecord]: ...

    def summary(self) -> Summary: ...


class FolderRecorder:
    """A run folder: results.jsonl streamed record by record (each line flushed as written), then run.json and the
    pages registered under `judgelab.pages` (summary.md, report.html); read back as a typed Run."""

    def __init__(self, folder: str | Path) -> None:
        self._folder = Path(folder)
        self._results: IO[str] | None = None

    @property
    def folder(self) -> Path:
        return self._folder

    def open(self) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)
        self._results = (self._folder / "results.jsonl").open("w", encoding="utf-8")

    def item(self, record: ItemRecord) -> None:
        if self._results is None:
            raise RuntimeError("FolderRecorder.item before open")
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

    def load(self) -> Run:
        """The run as its run.json says (an older folder migrated on read, a foreign one a one-line error)."""
        return Run.load(self._folder)

    def items(self) -> Iterator[ItemRecord]:
        """The records as written, one at a time (a torn last line skipped with a warning)."""
        results = self._folder / "results.jsonl"
        if results.is_file():
            yield from read_records(results)

    def summary(self) -> Summary:
        """The run's summary, as run.json keeps it."""
        return self.load().summary


def record_run(run: Run, recorder: Recorder) -> Run:
    """Write a run made elsewhere (its records at hand: a baseline's, a jury's) through `recorder`, as the loop does."""
    recorder.open()
    for record in run.iter_records():
        recorder.item(record)
    recorder.flush()
    run.folder = recorder.folder
    recorder.finish(run)
    return run
