"""The offline judge's main job with its server's completions on any thread of AnyIO's pool (llama-cpp-python's
server as it comes) against all on one compute thread (judges/calls/llama_serve.py `one_compute_thread`), as whole
processes one after the other, alternating: wall time, llama.cpp's reading and decoding times from the server's log,
replies that differ. Used by bench_offline_judge.py (`--parts thread`)."""

from __future__ import annotations

import os
from pathlib import Path

from offline_order import KEEP_LOG, MAIN, load_span, order_job, server_columns

# in the judgelab process: start the server with one_compute_thread turned off
ANY_POOL_THREAD = (
    "import subprocess\n"
    "start, popen = s.LlamaServer.start, subprocess.Popen\n"
    "def any_pool_thread(command, **options):\n"
    "    at = command.index('judges.calls.llama_serve')\n"
    "    code = 'from judges.calls import llama_serve as m; m.one_compute_thread = lambda: None; m.main()'\n"
    "    return popen([command[0], '-c', code, *command[at + 1:]], **options)\n"
    "def start_any_pool_thread(self):\n"
    "    subprocess.Popen = any_pool_thread\n"
    "    try:\n"
    "        start(self)\n"
    "    finally:\n"
    "        subprocess.Popen = popen\n"
    "s.LlamaServer.start = start_any_pool_thread\n"
)
CONFIGS = {
    "any pool thread (before)": KEEP_LOG + ANY_POOL_THREAD + MAIN,
    "one compute thread (after)": KEEP_LOG + MAIN,
}


def measure(limit: int, repeats: int, work: Path) -> dict:
    """`repeats` rounds of both configurations one after the other (never side by side: two servers would spin on
    the same two cores), before first in odd rounds and after first in even ones; each row is the median run."""
    from datetime import UTC, datetime

    runs: dict[str, list[dict]] = {name: [] for name in CONFIGS}
    for round_ in range(repeats):
        for name in CONFIGS if round_ % 2 == 0 else reversed(CONFIGS):
            runs[name].append(order_job(name, limit, work, CONFIGS[name]))
    first = runs[next(iter(CONFIGS))][0]["answers"]
    rows = []
    for name, measured in runs.items():
        measured.sort(key=lambda r: r["wall_s"])
        row = {k: v for k, v in measured[len(measured) // 2].items() if k not in ("answers", "order")}
        row |= {"config": name, "walls_s": [r["wall_s"] for r in measured]}
        row["replies_differing"] = max(sum(r["answers"][k][1] != first[k][1] for k in first) for r in measured)
        rows.append(row)
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "repeats": repeats,
        "rows": rows,
        "speedup": rows[0]["wall_s"] / rows[1]["wall_s"],
    }


def render_thread(part: dict) -> list[str]:
    from judges.pages.markdown import table

    return [
        f"## One compute thread in the server ({part['date']}, {part['cpus']} CPUs)",
        "",
        "`judgelab meta-eval` (the main job, 32 train tests) into a new reply cache as a whole process, interpreter "
        "start and model load included. llama.cpp's CPU backend is built with OpenMP, which keeps a team of worker "
        "threads for each thread that calls it; an idle team spins for a while before it sleeps. Before: "
        "llama-cpp-python's server hands each request to any thread of AnyIO's pool, so a team left spinning by one "
        "request takes a core from the next request's work. After: every completion runs on one compute thread "
        f"(judges/calls/llama_serve.py). {part['repeats']} rounds, one run at a time, the two configurations "
        "alternating; the median run of each is shown, with every run's wall time. Reading and generating times are "
        "llama.cpp's own, from the server's log.",
        "",
        table(
            [
                {
                    "config": r["config"],
                    "wall (s), median": f"{r['wall_s']:.1f}",
                    "every run (s)": ", ".join(f"{w:.1f}" for w in r["walls_s"]),
                    "load avg": load_span(r),
                    **server_columns(r),
                    "total": f"{100 * r['total']:.1f}%",
                    "replies unlike the first run": r["replies_differing"],
                }
                for r in part["rows"]
            ]
        ),
        "",
        f"Median before / median after: {part['speedup']:.2f}x.",
        "",
    ]
