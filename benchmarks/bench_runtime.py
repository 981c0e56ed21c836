"""Runtime benchmark: judgelab (lean and via LiteLLM) beside bare client loops, grouse and ragas on one stub server.

    python benchmarks/bench_runtime.py                           # everything; peers only if their venvs exist
    python benchmarks/bench_runtime.py --peers install           # create the peers' venvs first (a few minutes)
    python benchmarks/bench_runtime.py --peers earlier --no-offline

All tools judge the same samples (the first N unit tests of unit_tests/test.jsonl) against the same loopback stub
(latency L, at most C requests at once), at each C of --concurrency (peers at the smallest only). For each: wall
time of the evaluation itself (after imports), the requests the server saw, the bound N*L/C and the ratio to it.
The rows run in one process, interleaved; before each, garbage is collected and the heap frozen (gc.freeze), so no
row's collections walk the objects that the other rows' clients loaded. The stub (stub_server.py, a separate
process on the same machine) parses each distinct request body and works out its reply once, then reuses them.
Also: two stub servers as deployments of one judge, a fully cached re-run as a whole process, `judgelab --help`
and the offline judge. The CLI path (cli_path.py): `judgelab evaluate` of the same samples as a new process each
time beside bare aiohttp loops sending its very requests, timed as the span the stub saw, at each C; and the same
command fully cached. Writes results/benchmarks/runtime.json and runtime.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from cli_path import cached_evaluate, cli_markdown, compile_package, measure_cli_path  # noqa: E402
from stub_server import running_stub, stub_stats  # noqa: E402


class Recorder:
    """A backend wrapper that keeps every request sent, so the bare loops can send the very same ones."""

    def __init__(self, backend: Any) -> None:
        self.backend, self.requests = backend, []

    async def complete(self, request: Any) -> Any:
        self.requests.append(request)
        return await self.backend.complete(request)

    async def aclose(self) -> None:
        await self.backend.aclose() if hasattr(self.backend, "aclose") else None


def judgelab_run(
    bases: list[str],
    tests: list,
    concurrency: int,
    client: str = "lean",
    cache_path: Path | None = None,
    record: list | None = None,
) -> dict:
    """Time judgelab's meta-eval over `tests` in this process (the client imported first); several `bases` are
    deployments of one judge, `concurrency` calls at once on each."""
    from judges.calls.backend_factory import open_backend
    from judges.calls.cache import CacheMode, ReplyCache
    from judges.calls.model_spec import JudgeModel
    from judges.calls.runtime import CallRuntime, RuntimeSettings
    from judges.judging.grouse_judge import GroundedQAJudge
    from judges.judging.prompts import load_prompt_set
    from judges.runs.service import execute
    from judges.suite.unit_test_task import UnitTestTask

    if client == "litellm":
        from judges.calls.litellm_backend import import_litellm

        import_litellm()
    else:
        import aiohttp  # noqa: F401

    cache = ReplyCache(cache_path) if cache_path else ReplyCache(":memory:", CacheMode.OFF)
    model = JudgeModel.from_name("openai/stub", api_base=bases[0])
    settings = RuntimeSettings(concurrency=concurrency * len(bases))
    with open_backend(
        model, timeout_s=settings.timeout_s, client=client, api_bases=bases, per_deployment=concurrency
    ) as backend:
        used = Recorder(backend) if record is not None else backend
        runtime = CallRuntime(used, cache, settings)
        judge = GroundedQAJudge(runtime, load_prompt_set("default"), model, {"temperature": 0, "max_tokens": 512})
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            done = asyncio.run(execute(UnitTestTask(tests, judge, 1), runtime, Path(tmp) / "results.jsonl"))
            wall = time.perf_counter() - started
    if record is not None:
        record.extend(used.requests)
    cache.close()
    return {
        "wall_s": wall,
        "samples": len(tests),
        "completed": done.finished,
        "calls": runtime.usage.calls,
        "cached_calls": runtime.usage.cached_calls,
    }


def _bodies(requests: list) -> list[dict]:
    from judges.calls.openai_http import OpenAIHTTPBackend

    lean = OpenAIHTTPBackend(api_base="http://unused/v1", api_key="none")
    return [lean.body(r) for r in requests]


def _timed_loop(make_loop: Any) -> float:
    """Run a bare loop twice (the first warms clients and caches) and time the second."""
    asyncio.run(make_loop())
    started = time.perf_counter()
    asyncio.run(make_loop())
    return time.perf_counter() - started


def litellm_loop(base_url: str, bodies: list[dict], concurrency: int) -> float:
    """The same requests through bare `litellm.acompletion` calls, C at a time, with nothing around them."""
    from judges.calls.litellm_backend import import_litellm

    litellm = import_litellm()

    async def loop() -> None:
        slots = asyncio.Semaphore(concurrency)

        async def one(body: dict) -> None:
            async with slots:
                await litellm.acompletion(
                    **{**body, "model": "openai/" + body["model"]}, api_base=base_url, api_key="none", num_retries=0
                )

        await asyncio.gather(*(one(b) for b in bodies))

    return _timed_loop(loop)


def aiohttp_loop(base_url: str, bodies: list[dict], concurrency: int) -> float:
    """The same requests POSTed through one pooled aiohttp session, replies parsed as JSON: the floor."""
    import aiohttp

    async def loop() -> None:
        slots = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

            async def one(body: dict) -> None:
                async with slots, session.post(f"{base_url}/chat/completions", json=body) as response:
                    json.loads(await response.read())

            await asyncio.gather(*(one(b) for b in bodies))

    return _timed_loop(loop)


def openai_loop(base_url: str, bodies: list[dict], concurrency: int) -> float:
    """The same requests through the official OpenAI client (httpx underneath), C at a time."""
    import httpx
    import openai

    async def loop() -> None:
        slots = asyncio.Semaphore(concurrency)
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        client = openai.AsyncOpenAI(
            base_url=base_url, api_key="none", max_retries=0, http_client=httpx.AsyncClient(limits=limits)
        )

        async def one(body: dict) -> None:
            async with slots:
                await client.chat.completions.create(**body)

        await asyncio.gather(*(one(b) for b in bodies))
        await client.close()

    return _timed_loop(loop)


CACHED_SCRIPT = """
import sys, time
started = time.perf_counter()
from judges.api import load_tests, run_unit_tests
tests = load_tests(sys.argv[1], limit=int(sys.argv[2]))
run = run_unit_tests(tests, "openai/stub", api_base=sys.argv[3], cache=sys.argv[4], out=sys.argv[5], concurrency=32)
assert run.stop_reason is None and run.usage.cached_calls == run.usage.calls > 0, run.usage
print(run.usage.calls, "litellm" in sys.modules, time.perf_counter() - started)
"""


def cached_process(tests_file: Path, n_tests: int, cache: Path, out: Path, base: str, repeats: int = 5) -> dict:
    """A fully cached re-run as a whole Python process (interpreter start, imports, run, run folder written),
    against `base`, the stub that filled the cache (its replies are keyed by it), now stopped: its port refuses,
    so any call would fail the run."""
    times, calls, imported = [], 0, True
    for i in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                CACHED_SCRIPT,
                str(tests_file),
                str(n_tests),
                base,
                str(cache),
                str(out / f"run{i}"),
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
        )
        times.append(time.perf_counter() - started)
        fields = done.stdout.split()
        calls, imported = int(fields[0]), fields[1] == "True"
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "repeats": repeats,
        "calls": calls,
        "litellm_imported": imported,
    }


def cached_cli(tests_file: Path, n_tests: int, cache: Path, out: Path, base: str) -> float:
    """The same fully cached re-run through `judgelab meta-eval` (summary printed, report.html written too)."""
    judgelab = [sys.executable, "-m", "judges.cli.main", "meta-eval", "--judge", "openai/stub"]
    started = time.perf_counter()
    subprocess.run(
        [
            *judgelab,
            "--api-base",
            base,
            "--tests",
            str(tests_file),
            "--limit",
            str(n_tests),
            "--cache",
            str(cache),
            "--out",
            str(out / "cli"),
            "--concurrency",
            "32",
        ],
        capture_output=True,
        check=True,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    return time.perf_counter() - started


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
        run = json.loads((Path(tmp) / "run" / "run.json").read_text()) if out.returncode == 0 else None
    return {
        "tests": limit,
        "wall_s": wall,
        "ok": out.returncode == 0,
        "calls": run["usage"]["calls"] if run else None,
    }


MEASURED = (
    "judgelab lean",
    "judgelab via LiteLLM",
    "bare aiohttp loop",
    "bare LiteLLM loop",
    "bare OpenAI-client loop",
)


def measure(tool: str, base: str, tests: list, concurrency: int, bodies: list[dict]) -> dict:
    """One timed run of `tool` against the stub at `base`, with the requests the server saw.

    The harness's heap (every row's client imported, LiteLLM's several hundred thousand objects among them) is
    frozen for the row: no row's garbage collections walk what the other rows loaded."""
    stub_stats(base, reset=True)
    gc.collect()
    gc.freeze()
    try:
        if tool == "judgelab lean":
            row = judgelab_run([base], tests, concurrency, "lean")
        elif tool == "judgelab via LiteLLM":
            row = judgelab_run([base], tests, concurrency, "litellm")
        else:
            loop = {"bare aiohttp loop": aiohttp_loop, "bare LiteLLM loop": litellm_loop}.get(tool, openai_loop)
            row = {"wall_s": loop(base, bodies, concurrency)}
    finally:
        gc.unfreeze()
    requests = stub_stats(base, reset=True).get("requests", 0)
    row["requests"] = requests if tool.startswith("judgelab") else requests // 2  # two loops ran; one was timed
    return row


def summarize_rows(tool: str, concurrency: int, runs: list[dict], latency: float) -> dict:
    walls = [r["wall_s"] for r in runs]
    requests = runs[-1]["requests"] + runs[-1].get("embeddings", 0)
    bound = requests * latency / concurrency
    wall = statistics.median(walls)
    return {
        "tool": tool,
        "concurrency": concurrency,
        "wall_s": wall,
        "walls_s": walls,
        "requests": requests,
        "bound_s": bound,
        "ratio_to_bound": wall / bound if bound else None,
    }


def earlier_peers(out: Path) -> list[dict]:
    """The peers' rows of the last published run, when their environments are not installed here."""
    try:
        earlier = json.loads((out / "runtime.json").read_text())
    except (OSError, ValueError):
        return []
    rows = [r for r in earlier.get("tools", []) if r.get("tool") in ("grouse", "ragas")]
    for row in rows:
        row.setdefault("concurrency", earlier.get("concurrency", 32))
        row.setdefault("measured", earlier.get("measured_peers", earlier.get("date")))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--samples", type=int, default=144)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each row, interleaved; the median shown")
    parser.add_argument("--cached-tests", type=int, default=192, help="tests in the cached rerun (3 calls each)")
    parser.add_argument(
        "--peers",
        choices=["run", "install", "earlier"],
        default="run",
        help="run grouse and ragas if their venvs exist (install: create them first; earlier: reuse the last figures)",
    )
    parser.add_argument("--offline", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--cli-path", action=argparse.BooleanOptionalAction, default=True, help="the CLI rows (cli_path.py)"
    )
    parser.add_argument(
        "--tools", nargs="+", choices=MEASURED, default=list(MEASURED), help="the measured rows to run (default: all)"
    )
    parser.add_argument("--venvs", default=str(HERE / ".venvs"))
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = parser.parse_args()

    from judges.suite.loading import load_unit_tests

    tests_file = ROOT / "unit_tests" / "test.jsonl"
    all_tests = load_unit_tests(tests_file)
    tests = all_tests[: args.samples]
    latency = args.latency_ms / 1000
    out = Path(args.out)
    rows: list[dict] = []
    cli_rows: list[dict] = []
    cached_eval: dict = {}
    two_servers: dict = {}
    compile_package()
    load_at_start = __import__("os").getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
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
        for concurrency in args.concurrency:
            with running_stub(latency_ms=args.latency_ms, max_concurrency=concurrency) as base:
                recorded: list = []
                judgelab_run([base], tests, concurrency, "lean", record=recorded)  # warm-up; its requests recorded
                bodies = _bodies(recorded)
                chosen = [tool for tool in MEASURED if tool in args.tools]
                runs: dict[str, list[dict]] = {tool: [] for tool in chosen}
                for _ in range(args.repeats):  # interleaved, so that load from other users hits every row alike
                    for tool in chosen:
                        runs[tool].append(measure(tool, base, tests, concurrency, bodies))
                rows += [summarize_rows(tool, concurrency, runs[tool], latency) for tool in chosen]
                if args.cli_path:
                    cli_rows += measure_cli_path(
                        base, samples_file, concurrency, args.latency_ms, args.repeats, Path(tmp)
                    )
                if concurrency == min(args.concurrency):
                    with running_stub(latency_ms=args.latency_ms, max_concurrency=concurrency) as second:
                        one, two = [], []
                        for _ in range(args.repeats):
                            one.append(judgelab_run([base], tests, concurrency, "lean")["wall_s"])
                            two.append(judgelab_run([base, second], tests, concurrency, "lean")["wall_s"])
                            served = [
                                stub_stats(base, reset=True)["requests"],
                                stub_stats(second, reset=True)["requests"],
                            ]
                        two_servers = {
                            "concurrency_per_server": concurrency,
                            "one_server_s": statistics.median(one),
                            "two_servers_s": statistics.median(two),
                            "ratio": statistics.median(two) / statistics.median(one),
                            "requests_per_server": [served[0] - len(bodies), served[1]],
                        }
                    if args.peers in ("run", "install"):
                        venvs = Path(args.venvs)
                        ready = all((venvs / tool / "bin" / "python").exists() for tool in ("grouse", "ragas"))
                        if args.peers == "install" or ready:
                            subprocess.run(["bash", str(HERE / "peers" / "setup.sh"), args.venvs], check=True)
                            for tool in ("grouse", "ragas"):
                                stub_stats(base, reset=True)
                                result = peer_run(tool, venvs, base, samples_file)
                                counts = stub_stats(base, reset=True)
                                peer = {**result, "requests": counts.get("requests", 0)}
                                peer["embeddings"] = counts.get("embeddings", 0)
                                if "wall_s" in peer:
                                    peer.update(summarize_rows(tool, concurrency, [peer], latency), **result)
                                rows.append(peer)
                        else:
                            args.peers = "earlier"
                    if args.peers == "earlier":
                        rows += earlier_peers(out)
                    cache_file = Path(tmp) / "cache.sqlite"
                    from judges.api import run_unit_tests  # fills the cache with the CLI's default parameters

                    filled = run_unit_tests(
                        all_tests[: args.cached_tests], "openai/stub", api_base=base, cache=str(cache_file)
                    )
                    assert filled.stop_reason is None, filled.stop_message
                    if args.cli_path:
                        cached_eval = cached_evaluate(samples_file, base, concurrency, Path(tmp))
        # against the stub that filled the cache, stopped: its URL keys the replies, its port now refuses
        cached = cached_process(tests_file, args.cached_tests, cache_file, Path(tmp), base)
        cached["cli_s"] = cached_cli(tests_file, args.cached_tests, cache_file, Path(tmp), base)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(),
        "cpus": __import__("os").cpu_count(),
        "latency_ms": args.latency_ms,
        "samples": len(tests),
        "repeats": args.repeats,
        "tools": rows,
        "two_servers": two_servers,
        "cached_rerun": cached,
        "cli_path": cli_rows,
        "cached_evaluate": cached_eval,
        "help": help_time(),
    }
    if args.offline:
        result["offline_judge"] = offline_time(16)
    result["load_average"] = {"start": load_at_start, "end": __import__("os").getloadavg()}
    result["command"] = " ".join(["python benchmarks/bench_runtime.py", *sys.argv[1:]])
    out.mkdir(parents=True, exist_ok=True)
    (out / "runtime.json").write_text(json.dumps(result, indent=2))
    (out / "runtime.md").write_text(markdown(result))
    print(markdown(result))


def markdown(result: dict) -> str:
    lines = [
        f"# Runtime benchmark ({result['date']}, {result['cpus']} CPUs)",
        "",
        *([f"Made by `{result['command']}`.", ""] if result.get("command") else []),
        f"{result['samples']} samples; stub server latency L = {result['latency_ms']:g} ms, at most C requests at "
        "once. Bound = N x L / C, N = requests the server saw (embedding requests included). Wall time of the "
        f"evaluation itself (after imports); median of {result['repeats']} runs interleaved with the other rows "
        "(bare loops: the second of two loops). The bare loops send the very requests judgelab sent. All rows run in "
        "one process; the heap is frozen before each (gc.freeze), so no row's garbage collections walk another "
        "row's client. The stub server is an aiohttp.web process on the same machine that parses each distinct "
        "request and works out its reply once.",
        "",
    ]
    if "load_average" in result:  # the other users of this shared machine, as the figures were taken
        start, end = (", ".join(f"{x:.2f}" for x in result["load_average"][k]) for k in ("start", "end"))
        lines += [f"Load average (1, 5, 15 min) at the start of the run: {start}; at its end: {end}.", ""]
    lines += [
        "| C | tool | wall (s) | requests | bound (s) | ratio to bound | vs judgelab lean |",
        "|---|---|---|---|---|---|---|",
    ]
    lean = {r["concurrency"]: r["wall_s"] for r in result["tools"] if r.get("tool") == "judgelab lean"}
    for row in result["tools"]:
        c = row.get("concurrency", "?")
        if "wall_s" not in row:
            lines.append(f"| {c} | {row['tool']} | failed: {row.get('error', '?')} | | | | |")
            continue
        name = row["tool"] + (f" {row['version']}" if row.get("version") else "")
        if row.get("measured"):
            name += f" (earlier run, {str(row['measured'])[:10]})"
        ratio = f"{row['ratio_to_bound']:.2f}x" if row.get("ratio_to_bound") else "-"
        versus = f"{row['wall_s'] / lean[c]:.2f}x" if c in lean and row["tool"] != "judgelab lean" else "-"
        lines.append(
            f"| {c} | {name} | {row['wall_s']:.2f} | {row['requests'] + row.get('embeddings', 0)} | "
            f"{row.get('bound_s', 0):.2f} | {ratio} | {versus} |"
        )
    cached, helped, two = result["cached_rerun"], result["help"], result["two_servers"]
    lines += [""]
    if two:
        lines.append(
            f"Two stub servers at C = {two['concurrency_per_server']} each: {two['two_servers_s']:.2f} s against "
            f"{two['one_server_s']:.2f} s on one ({two['ratio']:.2f}x the span; requests per server "
            f"{two['requests_per_server'][0]} and {two['requests_per_server'][1]})."
        )
    lines += [
        f"Fully cached rerun of {cached['calls']} calls as a whole process (interpreter, imports, run, run folder; "
        f"Python API): median {cached['median_s']:.3f} s over {cached['repeats']} runs (LiteLLM imported: "
        f"{'yes' if cached['litellm_imported'] else 'no'}); through `judgelab meta-eval` (summary printed, "
        f"report written): {cached['cli_s']:.2f} s.",
        f"`judgelab --help`: median {helped['median_s']:.3f} s over {helped['repeats']} runs.",
    ]
    if "offline_judge" in result:
        offline = result["offline_judge"]
        lines.append(
            f"Offline judge (SmolLM2-135M, llama.cpp, 2 threads) on {offline['tests']} train tests: "
            f"{offline['wall_s']:.1f} s for {offline['calls']} calls, server start included."
        )
    lines += cli_markdown(
        result.get("cli_path", []), result.get("cached_evaluate", {}), result["samples"], result["latency_ms"]
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
