"""The offline judge's main job with its server's completions on any thread of AnyIO's pool (llama-cpp-python's
server as it comes) against all on one compute thread (judges/calls/llama_serve.py `one_compute_thread`), as whole
processes one after the other, alternating: wall time, llama.cpp's reading and decoding times from the server's log,
replies that differ. Then the mechanism without a server: the job's requests (captured in the server) replayed in
this process on the same model, all from one thread, then alternately from two. Used by bench_offline_judge.py
(`--parts thread`)."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from offline_order import KEEP_LOG, MAIN, load_span, order_job, server_columns

# in the judgelab process: start the server with one_compute_thread turned off
ANY_POOL_THREAD = (
    "import subprocess\n"
    "start, popen = s.LlamaServer.start, subprocess.Popen\n"
    "def any_pool_thread(command, **options):\n"
    "    if 'judges.calls.llama_serve' not in command:  # another process (the one-off Q8_0 copy)\n"
    "        return popen(command, **options)\n"
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
# in the judgelab process: start the server through serve_capturing, which writes each request to $CAPTURE_REQUESTS
CAPTURING = ANY_POOL_THREAD.replace(
    "'from judges.calls import llama_serve as m; m.one_compute_thread = lambda: None; m.main()'",
    f'"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); '
    'import offline_thread as o; o.serve_capturing()"',
)
assert CAPTURING != ANY_POOL_THREAD, "the server command in ANY_POOL_THREAD changed: CAPTURING no longer replaces it"
CONFIGS = {
    "any pool thread (before)": KEEP_LOG + ANY_POOL_THREAD + MAIN,
    "one compute thread (after)": KEEP_LOG + MAIN,
}


def serve_capturing() -> None:
    """In the server's process: judgelab's server, each chat completion's arguments appended to $CAPTURE_REQUESTS."""
    from llama_cpp import Llama

    from judges.calls import llama_serve

    complete = Llama.create_chat_completion

    def capturing(self: Any, *args: Any, **options: Any) -> Any:
        kept = {k: v for k, v in options.items() if k not in ("logits_processor", "stopping_criteria", "grammar")}
        with open(os.environ["CAPTURE_REQUESTS"], "a", encoding="utf-8") as log:
            log.write(json.dumps(kept) + "\n")
        return complete(self, *args, **options)

    Llama.create_chat_completion = capturing  # type: ignore[method-assign]
    llama_serve.main()


def replay(requests: list[dict], threads: int) -> dict:
    """The requests on a fresh model loaded as the server loads it, in this process, sent from `threads` threads in
    turn (one request at a time): wall time, llama.cpp's reading and decoding times, and the replies."""
    from llama_cpp import Llama, llama_cpp

    from judges.calls import llama_serve
    from judges.calls.gguf_encoding import served_copy
    from judges.calls.local_server import smollm2_path

    llama_serve.install()
    with open(os.devnull, "wb") as quiet:
        model = served_copy(smollm2_path(), quiet)
    llm = Llama(str(model), n_ctx=4096, n_threads=2, flash_attn=True, logits_all=True, verbose=False)
    pools = [ThreadPoolExecutor(1) for _ in range(threads)]
    reading = decoding = generated = 0.0
    replies = []
    started = time.perf_counter()
    for k, request in enumerate(requests):
        options = {key: value for key, value in request.items() if key != "model"}
        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)  # llama.cpp's counts from here are this completion's
        done = pools[k % threads].submit(llm.create_chat_completion, **options).result()
        replies.append(done["choices"][0]["message"]["content"])
        perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
        reading, decoding, generated = reading + perf.t_p_eval_ms, decoding + perf.t_eval_ms, generated + perf.n_eval
    wall = time.perf_counter() - started
    for pool in pools:
        pool.shutdown()
    llm.close()
    return {
        "threads": threads,
        "requests": len(requests),
        "wall_s": wall,
        "reading_s": reading / 1000,
        "generating_s": decoding / 1000,
        "tokens_generated": int(generated),
        "replies": replies,
    }


def measure_replay(work: Path) -> dict:
    """The main job's requests captured once, then replayed from one thread and alternately from two."""
    captured = work / "requests.jsonl"
    os.environ["CAPTURE_REQUESTS"] = str(captured)
    order_job("capture", 32, work, KEEP_LOG + CAPTURING + MAIN)
    requests = [json.loads(line) for line in captured.read_text(encoding="utf-8").splitlines()]
    runs = [replay(requests, threads) for threads in (1, 2)]
    one = runs[0]["replies"]
    return {
        "rows": [
            {k: v for k, v in run.items() if k != "replies"}
            | {"replies_differing": sum(a != b for a, b in zip(run["replies"], one, strict=True))}
            for run in runs
        ]
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
        "replay": measure_replay(work),
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
        *render_replay(part.get("replay")),
    ]


def render_replay(replay: dict | None) -> list[str]:
    from judges.pages.markdown import table

    if replay is None:
        return []
    return [
        "The mechanism without a server: the main job's requests, captured in the server, replayed in one process on "
        "a fresh model loaded as the server loads it, one request at a time, all from one thread, then alternately "
        "from two threads (as AnyIO's pool may hand them out). Reading and generating times are llama.cpp's own.",
        "",
        table(
            [
                {
                    "sent from": f"{r['threads']} thread" + ("s, alternately" if r["threads"] > 1 else ""),
                    "requests": r["requests"],
                    "wall (s)": f"{r['wall_s']:.1f}",
                    "reading (s)": f"{r['reading_s']:.1f}",
                    "generating (s)": f"{r['generating_s']:.1f}",
                    "ms per generated token": f"{1000 * r['generating_s'] / max(r['tokens_generated'], 1):.1f}",
                    "replies unlike one thread's": r["replies_differing"],
                }
                for r in replay["rows"]
            ]
        ),
        "",
    ]
