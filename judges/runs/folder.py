"""A run's folder: where it goes when the user gives no --out (results/runs/<UTC time>-<what>), and writing it."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

from judges.plugins import load, names
from judges.runs.run import Run


def default_run_dir(root: Path, *parts: str) -> Path:
    from datetime import datetime

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    slug = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return root / f"{stamp}-{slug}"


def save_run(run: Run, folder: str | Path) -> None:
    """Write run.json (beside the streamed results.jsonl), then each page registered under `judgelab.pages`
    (summary.md and report.html), drawn from the run."""
    folder = Path(folder)
    run.save(folder)
    for page in names("pages"):
        load("pages", page)(run, folder)
