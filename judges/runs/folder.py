"""Where a run's folder goes when the user gives no --out: results/runs/<UTC time>-<what>."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path


def default_run_dir(root: Path, *parts: str) -> Path:
    from datetime import datetime

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    slug = "-".join(re.sub(r"[^A-Za-z0-9.]+", "_", p).strip("_") for p in parts if p)
    return root / f"{stamp}-{slug}"
