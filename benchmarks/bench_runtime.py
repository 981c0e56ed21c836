"""Runtime benchmark: judgelab beside grouse and ragas on one stub server, plus cache, CLI and offline timings.

    python benchmarks/bench_runtime.py                 # everything (installs the peers' venvs on first run)
    python benchmarks/bench_runtime.py --no-peers --no-offline

All tools judge the same samples (the first N unit tests of unit_tests/test.jsonl) against the same
loopback stub (latency L, at most C requests at once). For each: wall time of the evaluation itself
(after imports), the requests the server saw, the bound N*L/C (N = those requests) and the ratio to
it. Writes results/benchmarks/runtime.json and runtime.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from stub_server import running_stub, stub_stats  # noqa: E402


def judgelab_run(base_url: str, tests: list, concurrency: int, cache_path: Path | None = None) -> dict:
    """Time judgelab's meta-eval over `tests` in this process (LiteLLM imported and warmed first)."""
    from judges.calls.cache import CacheMode, ReplyCache
    from judges.calls.litellm_backend import LiteLLMBackend, import_litellm
    from judges.calls.model_spec import JudgeModel
    from judges.calls.runtime import CallRuntime, RuntimeSettings
    from judges.judging.grouse_judge import GroundedQAJudge
    from judges.judging.prompts import load_prompt_set
    from judges.suite.scoring import run_meta_eval

    import_litellm()
    cache = ReplyCache(cache_path) if cache_path else ReplyCache(":memory:", CacheMode.OFF)
    runtime = CallRuntime(
        LiteLLMBackend(api_base=base_url, api_key="none"), cache, RuntimeSettings(concurrency=concurrency)
    )
    judge = GroundedQAJudge(
        runtime,
        load_prompt_set("default"),
        JudgeModel("openai/stub", "openai/stub"),
        {"temperature": 0, "max_tokens": 512},
    )
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        run = asyncio.run(run_meta_eval(tests, judge, Path(tmp) / "results.jsonl"))
        wall = time.perf_counter() - started
    cache.close()
    return {
        "wall_s": wall,
        "samples": len(tests),
        "completed": len(run.results),
        "calls": runtime.usage.calls,
        "cached_calls": runtime.usage.cached_calls,
    }


def litellm_floor(base_url: str, calls: int, concurrency: int) -> dict:
    """A bare loop of `litellm.acompletion` calls, C at a time, with nothing around them: what any runtime built on
    LiteLLM can reach on this machine (judgelab's own overhead is the gap to this row)."""
    from judges.calls.litellm_backend import import_litellm

    litellm = import_litellm()
    messages = [{"role": "user", "content": 'Grade it. "usefulness": 0 or 1'}]

    async def loop() -> None:
        slots = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with slots:
                await litellm.acompletion(
                    model="openai/stub",
                    messages=messages + [{"role": "user", "content": str(i)}],
                    api_base=base_url,
                    api_key="none",
                    num_retries=0,
                )

        await asyncio.gather(*(one(i) for i in range(calls)))

    asyncio.run(loop())  # warm-up of clients and caches is the first call; time a second loop
    started = time.perf_counter()
    asyncio.run(loop())
    return {"tool": "bare LiteLLM loop (floor)", "wall_s": time.perf_counter() - started, "samples": 0}


def peer_run(tool: str, venvs: Path, base_url: str, samples_file: Path) -> dict:
    python = venvs / tool / "bin" / "python"
    out = subprocess.run(
        [str(python), str(HERE / "peers" / f"run_{tool}.py"), "--base-url", base_url, "--samples", str(samples_file)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if out.returncode != 0:
        return {"tool": tool, "error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def help_time(repeats: int = 7) -> dict:
    judgelab = Path(sys.executable).parent / "judgelab"
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([str(judgelab), "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return {"median_s": statistics.median(times), "min_s": min(times), "repeats": repeats}


def offline_time(limit: int) -> dict:
    judgelab = Path(sys.executable).parent / "judgelab"
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        out = subprocess.run(
            [str(judgelab), "meta-eval", "--limit", str(limit), "--cache-mode", "off", "--out", str(Path(tmp) / "run")],
            capture_output=True,
            text=True,
            cwd=tmp,
        )
        wall = time.perf_counter() - started
        report = json.loads((Path(tmp) / "run" / "report.json").read_text()) if out.returncode == 0 else None
    return {
        "tests": limit,
        "wall_s": wall,
        "ok": out.returncode == 0,
        "calls": report["run"]["runtime"]["calls"] if report else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--samples", type=int, default=144)
    parser.add_argument("--cached-tests", type=int, default=192, help="tests in the cached rerun (about 3 calls each)")
    parser.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--offline", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--venvs", default=str(HERE / ".venvs"))
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = parser.parse_args()

    from judges.suite.loading import load_unit_tests

    all_tests = load_unit_tests(ROOT / "unit_tests" / "test.jsonl")
    tests = all_tests[: args.samples]
    latency = args.latency_ms / 1000
    rows: list[dict] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_stub(latency_ms=args.latency_ms, max_concurrency=args.concurrency) as base,
    ):
        samples_file = Path(tmp) / "samples.jsonl"
        samples_file.write_text(
            "".join(
                json.dumps(
                    {
                        "input": t.sample.input,
                        "references": list(t.sample.references),
                        "expected_output": t.sample.expected_output,
                        "actual_output": t.sample.actual_output,
                    }
                )
                + "\n"
                for t in tests
            )
        )
        stub_stats(base, reset=True)
        rows.append({"tool": "judgelab", **judgelab_run(base, tests, args.concurrency)})
        rows[-1]["requests"] = stub_stats(base, reset=True).get("requests", 0)
        floor = litellm_floor(base, rows[0]["requests"], args.concurrency)
        floor["requests"] = stub_stats(base, reset=True).get("requests", 0) // 2  # two loops ran; one was timed
        rows.append(floor)
        if args.peers:
            subprocess.run(["bash", str(HERE / "peers" / "setup.sh"), args.venvs], check=True)
            for tool in ("grouse", "ragas"):
                result = peer_run(tool, Path(args.venvs), base, samples_file)
                counts = stub_stats(base, reset=True)
                rows.append(
                    {**result, "requests": counts.get("requests", 0), "embeddings": counts.get("embeddings", 0)}
                )
        cache_file = Path(tmp) / "cache.sqlite"
        judgelab_run(base, all_tests[: args.cached_tests], args.concurrency, cache_file)  # fills the cache
        stub_stats(base, reset=True)
        cached = judgelab_run(base, all_tests[: args.cached_tests], args.concurrency, cache_file)
        cached["requests"] = stub_stats(base).get("requests", 0)
    for row in rows:
        if "wall_s" in row and row.get("requests"):
            row["bound_s"] = (row["requests"] + row.get("embeddings", 0)) * latency / args.concurrency
            row["ratio_to_bound"] = row["wall_s"] / row["bound_s"]
    ours = rows[0]["wall_s"]
    for row in rows[1:]:
        if "wall_s" in row:
            row["judgelab_speedup"] = row["wall_s"] / ours
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "cpus": __import__("os").cpu_count(),
        "latency_ms": args.latency_ms,
        "concurrency": args.concurrency,
        "samples": len(tests),
        "tools": rows,
        "cached_rerun": cached,
        "help": help_time(),
    }
    if args.offline:
        result["offline_judge"] = offline_time(16)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "runtime.json").write_text(json.dumps(result, indent=2))
    (out / "runtime.md").write_text(markdown(result))
    print(markdown(result))


def markdown(result: dict) -> str:
    lines = [
        f"# Runtime benchmark ({result['date']}, {result['cpus']} CPUs)",
        "",
        f"{result['samples']} samples; stub server latency L = {result['latency_ms']:g} ms, at most "
        f"C = {result['concurrency']} requests at once. Bound = N x L / C, N = requests the server saw "
        "(embedding requests included).",
        "",
        "| tool | wall (s) | requests | bound (s) | ratio to bound | judgelab faster by |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["tools"]:
        if "wall_s" not in row:
            lines.append(f"| {row['tool']} | failed: {row.get('error', '?')} | | | | |")
            continue
        speed = f"{row['judgelab_speedup']:.2f}x" if "judgelab_speedup" in row else "-"
        requests = row["requests"] + row.get("embeddings", 0)
        lines.append(
            f"| {row['tool']} | {row['wall_s']:.2f} | {requests} | {row.get('bound_s', 0):.2f} | "
            f"{row.get('ratio_to_bound', 0):.2f} | {speed} |"
        )
    cached, helped = result["cached_rerun"], result["help"]
    lines += [
        "",
        f"Fully cached rerun: {cached['calls']} calls ({cached['cached_calls']} from cache, "
        f"{cached['requests']} reached the server) in {cached['wall_s']:.3f} s.",
        f"`judgelab --help`: median {helped['median_s']:.3f} s over {helped['repeats']} runs.",
    ]
    if "offline_judge" in result:
        offline = result["offline_judge"]
        lines.append(
            f"Offline judge (SmolLM2-135M, llama.cpp, 2 threads) on {offline['tests']} train tests: "
            f"{offline['wall_s']:.1f} s for {offline['calls']} calls, server start included."
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
