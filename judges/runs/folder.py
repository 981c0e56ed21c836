"""A run's folder: where it goes when the user gives no --out (results/runs/<UTC time>-<what>), and writing it."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

from judges.plugins import load_each, wrong_type
from judges.runs.run import Run


def default_run_dir(root: Path, *parts: str) -> Path:
    from datetime import datetime

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    slug = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return root / f"{stamp}-{slug}"


def _page_writer(name: str, target: object) -> Callable[[Run, Path], None]:
    if not callable(target):
        raise wrong_type("pages", name, target, "a function (run, folder)")
    return target  # type: ignore[return-value]


def save_run(run: Run, folder: str | Path) -> None:
    """Write run.json (beside the streamed results.jsonl), then each page registered under `judgelab.pages`
    (summary.md and report.html), drawn from the run."""
    folder = Path(folder)
    run.save(folder)
    for write_page in load_each("pages", _page_writer):
        write_page(run, folder)
