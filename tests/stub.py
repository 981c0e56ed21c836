"""The loopback stub server of benchmarks/ for the fault tests: `stub_server(**flags)` and `stats(url)`; runs' records compared."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from scale_compare import comparable, read_records
from stub_server import running_stub as stub_server
from stub_server import stub_stats as stats

__all__ = ["comparable", "read_records", "stats", "stub_server"]
