"""What the scale benchmark's parts share: its samples, a `judgelab evaluate` run through the CLI with its peak RSS
and timings, and two runs' records compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from scale_compare import comparable, read_records

ROOT = Path(__file__).resolve().parent.parent

JUDGE = "openai/gpt-4o-mini"


def make_samples(n: int, path: Path) -> Path:
    base = [json.loads(line) for line in (ROOT / "unit_tests" / "test.jsonl").read_text().splitlines() if line]
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            record = dict(base[i % len(base)])
            record["id"] = f"s{i}"
            record["input"] = f"{record['input']} (question {i})"
            out.write(json.dumps(record) + "\n")
    return path


class Judgelab:
    def __init__(self, base: str | None, samples: Path, tmp: Path, concurrency: int, judge: str = JUDGE) -> None:
        self.base, self.samples, self.tmp, self.concurrency, self.judge = base, samples, tmp, concurrency, judge

    def start(self, name: str, *extra: str) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-bench", "JUDGELAB_BATCH_POLL_S": "0.5"}
        args = [
            sys.executable,
            "-m",
            "judges.cli.main",
            "evaluate",
            str(self.samples),
            "--judge",
            self.judge,
            *(("--api-base", self.base) if self.base else ()),
            "--quiet",
            "--concurrency",
            str(self.concurrency),
            "--cache",
            str(self.tmp / f"{name}.sqlite"),
            "--out",
            str(self.tmp / name),
            *extra,
        ]
        return subprocess.Popen(
            args, env=env, cwd=self.tmp, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )

    def run(self, name: str, *extra: str) -> dict[str, Any]:
        started = time.perf_counter()
        process = self.start(name, *extra)
        peak = watch_peak(process)
        _, err = process.communicate()
        wall, ended = time.perf_counter() - started, time.time()
        if process.returncode != 0:
            raise RuntimeError(f"{name} exited {process.returncode}: {err[-2000:]}")
        folder = self.tmp / name
        usage = json.loads((folder / "run.json").read_text())["usage"]
        # results.jsonl is appended as each item finishes: its last write is the end of the last item's calls
        after = ended - (folder / "results.jsonl").stat().st_mtime
        return {
            "wall_s": round(wall, 2),
            "calls": usage["calls"],
            "cost_usd": round(usage["cost"], 4),
            "calls_per_s": round(usage["calls"] / wall, 1),
            "driver_peak_rss_mb": peak,
            "after_last_record_s": round(after, 2),
            "report_html_mb": round((folder / "report.html").stat().st_size / 2**20, 2),
            "results_jsonl_mb": round((folder / "results.jsonl").stat().st_size / 2**20, 1),
        }


def watch_peak(process: subprocess.Popen[str]) -> float:
    """The process's peak RSS (VmHWM), read until it exits."""
    peak = 0.0
    while process.poll() is None:
        try:
            for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            break
        time.sleep(0.2)
    return round(peak, 1)


def same(tmp: Path, a: str, b: str) -> bool:
    return comparable(read_records(tmp / a)) == comparable(read_records(tmp / b))
