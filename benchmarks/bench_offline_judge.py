"""The offline judge before and after: SmolLM2 as shipped (Q4_1) behind llama-cpp-python's server as it comes, with
the default prompts, against what judgelab runs now (the Q8_0 copy, the grammar checked on the top token first, the
logits of every position only for logprob requests, the compact prompt set), side by side in one run.

    python benchmarks/bench_offline_judge.py [--repeats 1]

1. In this process (no server): prompt reading rate and decoding time per token of each encoding, with and without
   the logits of every position, on the first 4 train tests' answer-relevancy prompts.
2. Whole processes: `judgelab meta-eval` into a new reply cache (every call a miss) on the first 16 train tests and
   on the main job (all 32), wall time from the command's start to its exit (interpreter and model load included;
   the Q8_0 copy is made once before), and the pass rates each configuration gets. "Before" is the same command
   with `--prompts default` and the server started as it was before (`LlamaServer(reencode=False,
   top_token_first=False)`: llama-cpp-python's own server, which keeps the logits of every position).
3. The main job again, fully cached (the "after" run's cache), as a whole process: median of 5.
4. The main job's tests in file order against prompt-prefix order (benchmarks/offline_order.py): wall time, and the
   prompt tokens llama.cpp read and the tokens it generated, counted in the server's own log.
5. The prompt tokens llama.cpp must read for the main job under each prompt layout and call order, counted with the
   model's tokenizer (benchmarks/offline_layouts.py).
6. The main job as shipped against each metric's instructions moved before the sample on a server that keeps several
   prompts' states (benchmarks/offline_states.py, not adopted): side by side and each alone, tokens read, pass rates,
   verdicts that differ.
7. The main job with the server's completions on any thread of AnyIO's pool against all on one compute thread
   (benchmarks/offline_thread.py): alternating whole processes, wall time, llama.cpp's reading and decoding times;
   then the job's requests replayed in this process from one thread and alternately from two.
Writes results/benchmarks/offline_judge.{json,md}; `--parts states,layouts` runs parts 6 and 5 alone (the others keep
their last figures, dated).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.types import ALL_METRICS as METRICS  # noqa: E402 - the checkout's package, put on the path above

BEFORE = (
    "import functools, sys; from judges.calls import local_server as s; "
    "s.LlamaServer.__init__ = functools.partialmethod(s.LlamaServer.__init__, reencode=False, top_token_first=False); "
    "from judges.cli.main import main; sys.exit(main(sys.argv[1:]))"
)
AFTER = "import sys; from judges.cli.main import main; sys.exit(main(sys.argv[1:]))"
CONFIGS = {"before": (BEFORE, ["--prompts", "default"]), "after": (AFTER, [])}  # code, extra meta-eval options


def reading_and_decoding(model_path: Path, prompts: list[str], every_position: bool) -> dict:
    from llama_cpp import Llama

    llm = Llama(str(model_path), n_ctx=4096, n_threads=2, flash_attn=True, logits_all=every_position, verbose=False)
    read_tokens = read_s = 0.0
    for prompt in prompts:
        tokens = llm.tokenize(prompt.encode())
        llm.reset()
        started = time.perf_counter()
        llm.eval(tokens)
        read_s += time.perf_counter() - started
        read_tokens += len(tokens)
    steps = 60
    started = time.perf_counter()
    for _ in range(steps):
        llm.eval([llm.token_eos()])
    decode_s = (time.perf_counter() - started) / steps
    return {"prompt_tokens_per_s": read_tokens / read_s, "decode_ms_per_token": 1000 * decode_s}


def whole_job(config: str, limit: int, work: Path, cache: Path) -> dict:
    out = Path(tempfile.mkdtemp(prefix=f"{config}-{limit}-", dir=work))
    code, options = CONFIGS[config]
    command = [sys.executable, "-c", code, "meta-eval", "--cache", str(cache), "--quiet", *options]
    command += ["--limit", str(limit), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(work / "user-cache")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{config} --limit {limit} failed: {done.stderr[-1000:]}")
    from judges.runs.run import Run

    summary = Run.load(out).summary
    return {
        "config": config,
        "tests": limit,
        "wall_s": wall,
        "calls": summary.usage.calls,
        "cached_calls": summary.usage.cached_calls,
        "prompt_tokens": summary.usage.prompt_tokens,
        "completion_tokens": summary.usage.completion_tokens,
        "pass_rates": {m: summary.metrics[m].pass_rate for m in METRICS},
        "total": summary.total_pass_rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="whole-process runs of each row (median kept)")
    parser.add_argument(
        "--parts",
        default="earlier,order,layouts,states,thread",
        help="comma-separated, of: earlier (parts 1-3), order (4), layouts (5), states (6), thread (7); a part not run "
        "keeps its last figures",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    out = ROOT / "results" / "benchmarks"
    previous = out / "offline_judge.json"
    result = json.loads(previous.read_text()) if previous.is_file() else {}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        os.environ["XDG_CACHE_HOME"] = str(work / "user-cache")
        if "earlier" in parts:
            result.update(earlier(work, args.repeats))
        if "order" in parts:
            from offline_order import measure

            from judges.calls.gguf_encoding import served_copy
            from judges.calls.local_server import smollm2_path

            with open(os.devnull, "wb") as quiet:  # made once before, as on every run after a machine's first
                served_copy(smollm2_path(), quiet)
            result["order"] = measure((32,), args.repeats, work)
        if "states" in parts:
            from offline_states import measure as measure_states

            from judges.calls.gguf_encoding import served_copy
            from judges.calls.local_server import smollm2_path

            with open(os.devnull, "wb") as quiet:  # made once before, as on every run after a machine's first
                served_copy(smollm2_path(), quiet)
            result["states"] = measure_states(32, work)
        if "thread" in parts:
            from offline_thread import measure as measure_thread

            from judges.calls.gguf_encoding import served_copy
            from judges.calls.local_server import smollm2_path

            with open(os.devnull, "wb") as quiet:  # made once before, as on every run after a machine's first
                served_copy(smollm2_path(), quiet)
            result["thread"] = measure_thread(32, max(args.repeats, 3), work)
        if "layouts" in parts:
            from offline_layouts import count

            from judges.calls.gguf_encoding import served_copy
            from judges.calls.local_server import smollm2_path

            with open(os.devnull, "wb") as quiet:
                result["layouts"] = count(served_copy(smollm2_path(), quiet))
    out.mkdir(parents=True, exist_ok=True)
    previous.write_text(json.dumps(result, indent=2) + "\n")
    (out / "offline_judge.md").write_text(render(result))
    print(render(result))


def earlier(work: Path, repeats: int) -> dict:
    """Parts 1-3: the encodings in process, before and after as whole jobs, the main job fully cached."""
    from judges.calls.gguf_encoding import served_copy
    from judges.calls.local_server import smollm2_path
    from judges.judging.prompts import load_prompt_set
    from judges.suite.loading import load_unit_tests

    prompt_set = load_prompt_set("default")
    prompts = [
        prompt_set.render("answer_relevancy", t.sample) for t in load_unit_tests(ROOT / "unit_tests", "train")[:4]
    ]
    shipped = smollm2_path()
    with open(os.devnull, "wb") as quiet:  # llama.cpp reports every tensor it re-encodes
        served = served_copy(shipped, quiet)
    variants = [
        ("Q4_1 (shipped)", shipped, True),
        ("Q8_0 (served)", served, True),
        ("Q8_0 (served)", served, False),
    ]
    micro = [
        {"encoding": name, "every_position": every, **reading_and_decoding(path, prompts, every)}
        for name, path, every in variants
    ]
    runs: dict[tuple[str, int], list[dict]] = {}
    for _ in range(repeats):
        for limit in (16, 32):
            for config in CONFIGS:  # interleaved, so a slow minute of the machine hits both
                cache = work / f"{config}-{limit}-{len(runs.get((config, limit), []))}.sqlite"  # new: all misses
                runs.setdefault((config, limit), []).append(whole_job(config, limit, work, cache))
    main_job_cache = work / "after-32-0.sqlite"
    reruns = [whole_job("after", 32, work, main_job_cache) for _ in range(5)]
    if any(r["cached_calls"] != r["calls"] for r in reruns):
        raise SystemExit("the main job's re-run was not fully cached")
    cached = sorted(r["wall_s"] for r in reruns)
    rows = []
    for (_config, _limit), measured in runs.items():
        measured.sort(key=lambda r: r["wall_s"])
        rows.append({**measured[len(measured) // 2], "walls_s": [r["wall_s"] for r in measured]})
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "micro": micro,
        "rows": rows,
        "main_job_cached": {"calls": reruns[0]["calls"], "walls_s": cached, "median_s": cached[len(cached) // 2]},
    }


def render(result: dict) -> str:
    from offline_order import pass_rate_columns

    from judges.pages.markdown import table

    lines = [
        f"# Offline judge: SmolLM2-135M in llama.cpp, before and after ({result['date']}, {result['cpus']} CPUs)",
        "",
        "Before: the shipped Q4_1 weights behind llama-cpp-python's server as it comes (its sampler chain masks "
        "the whole vocabulary with the JSON grammar at every step; it keeps the logits of every position), with the "
        "default prompts. After: the Q8_0 copy judgelab makes once, the grammar checked on the model's top token "
        "first (the same tokens), the logits of every position only for requests that ask for logprobs (the same "
        "replies), and the compact prompt set (answer 2 graded alone under short reply keys, and the default "
        "faithfulness prompt). Whole process: "
        "`judgelab meta-eval --limit N` into a new reply cache, interpreter start and model load included (the Q8_0 "
        "copy is made once before, as on every run after a machine's first).",
        "",
        table(
            [
                {
                    "config": r["config"],
                    "tests": r["tests"],
                    "wall (s)": f"{r['wall_s']:.1f}",
                    "calls": r["calls"],
                    "prompt tokens sent": r["prompt_tokens"],
                    "completion tokens": r["completion_tokens"],
                    **pass_rate_columns(r),
                }
                for r in result["rows"]
            ]
        ),
        "",
        f'The main job again, fully cached ({result["main_job_cached"]["calls"]} calls from the "after" run\'s cache), '
        f"as a whole process: median {result['main_job_cached']['median_s']:.2f} s of 5.",
        "",
        "In process, first 4 train tests' answer-relevancy prompts (default set), 2 threads, flash attention:",
        "",
        table(
            [
                {
                    "encoding": m["encoding"],
                    "logits of": "every position" if m["every_position"] else "the last position",
                    "prompt reading (tokens/s)": f"{m['prompt_tokens_per_s']:.0f}",
                    "decoding (ms/token)": f"{m['decode_ms_per_token']:.1f}",
                }
                for m in result["micro"]
            ]
        ),
    ]
    if "order" in result:
        from offline_order import render_order

        lines += ["", *render_order(result["order"])]
    if "states" in result:
        from offline_states import render_states

        lines += ["", *render_states(result["states"])]
    if "thread" in result:
        from offline_thread import render_thread

        lines += ["", *render_thread(result["thread"])]
    if "layouts" in result:
        from offline_layouts import render_layouts

        lines += ["", *render_layouts(result["layouts"])]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
