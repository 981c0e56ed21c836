"""The record of submitted batches, beside the reply cache: written (atomically) before anything is polled, so a
stopped run started again polls the same batches and submits no row twice."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

DONE = ("completed", "failed", "expired", "cancelled")  # a batch in one of these states changes no more


@dataclass
class Entry:
    """One batch: its rows' ids (a file of custom_ids beside the ledger), the provider's file and batch ids."""

    name: str
    model: str
    rows: int
    ids_file: str
    file_id: str | None = None
    batch_id: str | None = None
    status: str = "written"  # written -> uploaded -> the provider's states (validating ... completed)
    imported: bool = False
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status in DONE


class Ledger:
    """`batches.json` in a folder beside the cache (`<cache>.batches/`), with one `<name>.ids` file per batch."""

    def __init__(self, cache_path: Path) -> None:
        self.folder = cache_path.parent / (cache_path.name + ".batches")
        self.path = self.folder / "batches.json"
        self.entries: list[Entry] = []
        if self.path.is_file():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.entries = [Entry(**raw) for raw in data.get("batches", [])]

    def add(self, entry: Entry, ids: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / entry.ids_file, "".join(f"{i}\n" for i in ids))
        self.entries.append(entry)
        self.save()

    def ids(self, entry: Entry) -> list[str]:
        path = self.folder / entry.ids_file
        return path.read_text(encoding="utf-8").split() if path.is_file() else []

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.as_json(self.entries), indent=1))

    def drop(self, entries: list[Entry]) -> None:
        """Forget batches whose replies the run has read back (the run folder keeps its own copy)."""
        for entry in entries:
            (self.folder / entry.ids_file).unlink(missing_ok=True)
        self.entries = [e for e in self.entries if e not in entries]
        self.save()

    def as_json(self, entries: list[Entry]) -> dict[str, Any]:
        return {"batches": [asdict(e) for e in entries]}


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, flushed to disk: a kill leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
