"""Peak memory and report size of `judgelab evaluate` as the run grows: N and 10 N samples against the loopback stub.

Run: python benchmarks/bench_memory.py --samples 1000 --out results/benchmarks
Each size runs once through the CLI as users run it, under /usr/bin/time -v (its "Maximum resident set size"),
with the reply cache off so every sample is judged; the samples are the unit tests' samples, each answer made
distinct. Writes memory.json and memory.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from stub_server import running_stub  # noqa: E402


def write_samples(path: Path, n: int) -> None:
    """`n` grounded-QA samples cycled from unit_tests/test.jsonl, each answer suffixed so no two are the same."""
    from judges.suite.loading import load_unit_tests

    tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")
    with path.open("w", encoding="utf-8") as handle:
        for k in range(n):
            sample = tests[k % len(tests)].sample
            row = {
                "id": f"s{k}",
                "input": sample.input,
                "references": list(sample.references or ()),
                "expected_output": sample.expected_output,
                "actual_output": f"{sample.actual_output} (variant {k})",
            }
            handle.write(json.dumps(row) + "\n")


def measure(base: str, samples: Path, out: Path) -> dict:
    command = [
        "/usr/bin/time",
        "-v",
        sys.executable,
        "-m",
        "judges.cli.main",
        "evaluate",
        str(samples),
        "--judge",
        "openai/stub",
        "--api-base",
        base,
        "--cache-mode",
        "off",
        "--concurrency",
        "32",
        "--quiet",
        "--out",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-stub-not-a-key"}
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"evaluate failed: {done.stderr[-2000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return {
        "samples": sum(1 for _ in samples.open(encoding="utf-8")),
        "peak_rss_mb": round(int(peak.group(1)) / 1024, 1) if peak else None,
        "wall_s": round(wall, 1),
        "report_html_kb": round((out / "report.html").stat().st_size / 1024, 1),
        "results_jsonl_mb": round((out / "results.jsonl").stat().st_size / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000, help="N: the sizes run are N and 10 N")
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    parser.add_argument("--label", default="", help="a note saved with the figures (e.g. the commit measured)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, running_stub(latency_ms=1) as base:
        for n in (args.samples, 10 * args.samples):
            samples = Path(tmp) / f"samples-{n}.jsonl"
            write_samples(samples, n)
            rows.append(measure(base, samples, Path(tmp) / f"run-{n}"))
            print(json.dumps(rows[-1]), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"label": args.label, "stub_latency_ms": 1, "concurrency": 32, "runs": rows}
    (out / "memory.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Memory of `judgelab evaluate` as the run grows",
        "",
        f"Loopback stub (1 ms), concurrency 32, reply cache off; {args.label}".rstrip("; "),
        "",
        "| samples | peak RSS (MB) | wall (s) | report.html (KB) | results.jsonl (MB) |",
        "|---:|---:|---:|---:|---:|",
        *(
            f"| {r['samples']} | {r['peak_rss_mb']} | {r['wall_s']} | {r['report_html_kb']} | {r['results_jsonl_mb']} |"
            for r in rows
        ),
    ]
    (out / "memory.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
