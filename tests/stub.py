"""Starts benchmarks/stub_server.py on a free loopback port for a test, and reads its counters."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def stub_server(**options: float) -> Iterator[str]:
    """Yields the server's base URL (…/v1); options are the script's flags, e.g. latency_ms=50."""
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in options.items()]
    process = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "stub_server.py"), "--port", "0", *flags],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line.startswith("READY "), f"stub server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        process.kill()
        process.wait()


def stats(base_url: str) -> dict[str, int]:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=5) as response:
        return json.loads(response.read())
