"""Two offline runs at once on shared cores: `judgelab meta-eval --limit N` with the local judge (a new reply cache
each, so every call reaches its own llama.cpp server), alone and then two started together, for each checkout given:
`python benchmarks/offline_pair.py --limit 4 --code LABEL=DIR ...`. Writes results/benchmarks/offline_pair.md/.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def start(code: Path, limit: int, folder: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "judges.cli.main", "meta-eval", "--limit", str(limit), "--quiet"]
    command += ["--out", str(folder / "run"), "--cache", str(folder / "cache.sqlite")]
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.Popen(command, env=env, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish(process: subprocess.Popen[bytes], started: float) -> float:
    _, err = process.communicate()
    if process.returncode not in (0, 1):
        raise RuntimeError(f"meta-eval exited {process.returncode}: {err.decode()[-500:]}")
    return time.perf_counter() - started


def measure(code: Path, limit: int, tmp: Path) -> dict[str, Any]:
    """One run alone, then two started together: wall times and the load average around them."""
    load = [round(os.getloadavg()[0], 2)]
    started = time.perf_counter()
    alone = finish(start(code, limit, tmp / "alone"), started)
    started = time.perf_counter()
    pair = [start(code, limit, tmp / f"pair-{n}") for n in range(2)]
    together = [finish(process, started) for process in pair]
    load.append(round(os.getloadavg()[0], 2))
    return {"alone_s": alone, "together_s": together, "slowdown": max(together) / alone, "load_1min": load}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=4, help="unit tests per run (3 or 4 calls each)")
    parser.add_argument("--code", nargs="+", default=[f"this checkout={ROOT}"], metavar="LABEL=DIR")
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = parser.parse_args()
    results: dict[str, Any] = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "limit": args.limit}
    with tempfile.TemporaryDirectory() as tmp:
        for label, _, folder in (code.rpartition("=") for code in args.code):
            results[label] = measure(Path(folder).resolve(), args.limit, Path(tmp) / label.replace(" ", "-"))
            write(results, args.limit, Path(args.out))  # after each checkout: a long benchmark keeps what it measured


def write(results: dict[str, Any], limit: int, out: Path) -> None:
    lines = [
        "# Two offline runs at once",
        "",
        f"`python benchmarks/offline_pair.py --limit {limit} --code LABEL=DIR ...` ({results['date'][:16]}, "
        f"{os.cpu_count()} cores shared with other users): `judgelab meta-eval --limit {limit}` with the offline "
        "judge, a new reply cache each time (model load and every call included), run alone, then two started "
        "together. Slowdown: the slower of the two over the run alone.",
        "",
        "| code | alone (s) | two at once (s) | slowdown | load 1 min (start, end) |",
        "|---|---|---|---|---|",
    ]
    for label, r in results.items():
        if isinstance(r, dict):
            together = ", ".join(f"{t:.1f}" for t in r["together_s"])
            lines.append(
                f"| {label} | {r['alone_s']:.1f} | {together} | {r['slowdown']:.2f}x | "
                f"{r['load_1min'][0]}, {r['load_1min'][1]} |"
            )
    (out / "offline_pair.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "offline_pair.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
