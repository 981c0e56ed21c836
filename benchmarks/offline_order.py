"""The offline judge's main job with its tests in file order against prompt-prefix order, as whole processes side by
side: wall time, the prompt tokens llama.cpp read (from the server's own log), the tokens it generated, the pass
rates, and how many verdicts differ. Used by bench_offline_judge.py (`--parts order`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the server's log is kept (llama.cpp prints each request's prompt tokens read and tokens generated); "file" turns
# the prefix order off, as it was before
KEEP_LOG = (
    "import os, shutil, sys; from judges.calls import local_server as s; stop = s.LlamaServer.stop\n"
    "def keep(self):\n"
    "    if not self._log.closed:\n"
    "        self._log.flush(); self._log.seek(0)\n"
    "        with open(os.environ['SERVER_LOG'], 'wb') as f: shutil.copyfileobj(self._log, f)\n"
    "    stop(self)\n"
    "s.LlamaServer.stop = keep\n"
)
FILE_ORDER = (
    "from judges.suite import unit_test_task as t; t.in_prefix_order = lambda items, first_prompt: list(items)\n"
)
MAIN = "from judges.cli.main import main; sys.exit(main(sys.argv[1:]))\n"
ORDERS = {"file order (before)": KEEP_LOG + FILE_ORDER + MAIN, "prefix order (after)": KEEP_LOG + MAIN}
READ = re.compile(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens")
GENERATED = re.compile(r"\s eval time =\s+([\d.]+) ms /\s+(\d+) runs")


def server_counts(log: str) -> dict:
    """What llama.cpp did, summed over the requests its log reports: prompt tokens read and the time it took, tokens
    generated one at a time and the time they took."""
    read = [(float(ms), int(n)) for ms, n in READ.findall(log)]
    generated = [(float(ms), int(n)) for ms, n in GENERATED.findall(log)]
    return {
        "requests": len(read),
        "prompt_tokens_read": sum(n for _, n in read),
        "prompt_read_s": sum(ms for ms, _ in read) / 1000,
        "tokens_generated": sum(n for _, n in generated),
        "generation_s": sum(ms for ms, _ in generated) / 1000,
    }


def server_columns(run: dict) -> dict:
    """What llama.cpp did in a run, as table columns: the prompt tokens it read and the tokens it generated, with
    the time each took."""
    return {
        "prompt tokens read": run["prompt_tokens_read"],
        "reading (s)": f"{run['prompt_read_s']:.1f}",
        "tokens generated": run["tokens_generated"],
        "generating (s)": f"{run['generation_s']:.1f}",
    }


def pass_rate_columns(run: dict) -> dict:
    """A run's pass rate per metric, as table columns under the metrics' short names, and the total."""
    from judges.types import ALL_METRICS

    short = ["AR", "C", "F", "U", "PA", "NR"]
    rates = {n: f"{100 * run['pass_rates'][m]:.1f}%" for n, m in zip(short, ALL_METRICS, strict=True)}
    return {**rates, "total": f"{100 * run['total']:.1f}%"}


def load_span(run: dict) -> str:
    """The machine's load average before and after a run."""
    return f"{run['load_average'][0]:.1f}-{run['load_average'][1]:.1f}"


def order_job(order: str, limit: int, work: Path, code: str | None = None, options: tuple[str, ...] = ()) -> dict:
    """One whole `judgelab meta-eval` run (the code in ORDERS[order] unless `code` is given), its server's counts."""
    from judges.runs.run import Run

    out = Path(tempfile.mkdtemp(prefix="order-", dir=work))
    log = out / "server.log"
    cache = out / "cache.sqlite"  # new: every call a miss
    command = [sys.executable, "-c", code or ORDERS[order], "meta-eval", "--cache", str(cache), "--quiet"]
    command += ["--limit", str(limit), "--out", str(out / "run"), *options]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SERVER_LOG": str(log)}
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{order} --limit {limit} failed: {done.stderr[-1000:]}")
    run = Run.load(out / "run")
    records = [json.loads(line) for line in (out / "run" / "results.jsonl").read_text().splitlines()]
    answers = {  # each test's verdict and the replies it rests on, by metric
        f"{record['id']}/{record.get('draw', 0)}/{metric}": [entry.get("verdict"), [c["reply"] for c in entry["calls"]]]
        for record in records
        for metric, entry in record["metrics"].items()
    }
    return {
        "order": order,
        "tests": limit,
        "wall_s": wall,
        "load_average": [load_before, os.getloadavg()[0]],
        "calls": run.summary.usage.calls,
        "prompt_tokens_sent": run.summary.usage.prompt_tokens,
        **server_counts(log.read_text(errors="replace")),
        "pass_rates": {m: s.pass_rate for m, s in run.summary.metrics.items()},
        "total": run.summary.total_pass_rate,
        "answers": answers,
    }


def measure(limits: tuple[int, ...], repeats: int, work: Path) -> dict:
    """Both orders' runs at the same time, each with its own server, so a busy minute of the shared machine hits both
    alike (run one after the other, the same 2,590 generated tokens took 53 s in one run and 133 s in the next);
    the median by wall time."""
    from concurrent.futures import ThreadPoolExecutor
    from datetime import UTC, datetime

    runs: dict[tuple[str, int], list[dict]] = {}
    for _ in range(repeats):
        for limit in limits:
            with ThreadPoolExecutor(len(ORDERS)) as pool:
                jobs = {order: pool.submit(order_job, order, limit, work) for order in ORDERS}
            for order, job in jobs.items():
                runs.setdefault((order, limit), []).append(job.result())
    rows = []
    for (_order, limit), measured in runs.items():
        measured.sort(key=lambda r: r["wall_s"])
        row = {**measured[len(measured) // 2], "walls_s": [r["wall_s"] for r in measured]}
        before = runs[(next(iter(ORDERS)), limit)][0]["answers"]
        row["verdicts_differing"] = sum(row["answers"][key][0] != before[key][0] for key in before)
        row["replies_differing"] = sum(row["answers"][key][1] != before[key][1] for key in before)
        rows.append({k: v for k, v in row.items() if k != "answers"})
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(), "rows": rows}


def render_order(part: dict) -> list[str]:
    from judges.pages.markdown import table

    return [
        f"## The tests' order ({part['date']}, {part['cpus']} CPUs)",
        "",
        "`judgelab meta-eval --limit N` into a new reply cache as a whole process, the two orders at the same time (each "
        "with its own server, so both meet the same load; each alone would be faster), the tests in file order (before) "
        "or in prompt-prefix order (after: tests sharing references, question and reference answer back to back, so "
        "llama.cpp reads only where a prompt parts from the one before). Prompt tokens read and tokens generated "
        "are llama.cpp's own counts from the server's log; they do not depend on the machine's load, the times do "
        "(the machine is shared: the load average before and after each run is shown).",
        "",
        table(
            [
                {
                    "order": r["order"],
                    "tests": r["tests"],
                    "wall (s)": f"{r['wall_s']:.1f}",
                    "load avg": load_span(r),
                    "prompt tokens sent": r["prompt_tokens_sent"],
                    **server_columns(r),
                    **pass_rate_columns(r),
                    "verdicts (replies) unlike before": f"{r['verdicts_differing']} ({r['replies_differing']})",
                }
                for r in part["rows"]
            ]
        ),
        "",
    ]
