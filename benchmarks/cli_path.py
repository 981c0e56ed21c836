"""The CLI path of bench_runtime.py: `judgelab evaluate` run as users run it (a new process each time) beside a bare
aiohttp loop sending the very same requests, both timed as the span the stub saw (first request received to last
reply sent); and the same command fully cached, timed as a whole process.

The bare loop keeps the pipeline's dependencies: each sample's answer-relevancy and completeness requests go out at
once, its faithfulness (or usefulness) request once both have answered, every sample at once, C in flight (a FIFO
semaphore). That is the fastest a client can go on GroUSE's pipeline; the same requests all at once, with no
dependency, are timed too, as a check that the rounds cost nothing.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from stub_server import running_stub, stub_stats

ROOT = Path(__file__).resolve().parent.parent
FIRST_ROUND = ("answer_relevancy", "completeness")  # GroUSE's first calls; faithfulness / usefulness wait on them


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def compile_package() -> None:
    """Bytecode for every module, as `pip install` writes it: this machine sets PYTHONDONTWRITEBYTECODE, so without
    this each run would compile the package anew."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "judges")], check=True, capture_output=True)


def evaluate_command(samples: Path, api_base: str, concurrency: int, out: Path, cache: str | None) -> list[str]:
    """The command a user types (`judgelab evaluate ...` is `python -m judges.cli.main evaluate ...`): default prompts
    and parameters, the lean client; the reply cache off unless `cache` is given."""
    command = [sys.executable, "-m", "judges.cli.main", "evaluate", str(samples), "--judge", "openai/stub"]
    command += ["--api-base", api_base, "--concurrency", str(concurrency), "--out", str(out)]
    return command + (["--cache", cache] if cache else ["--cache-mode", "off"])


def run_cli(command: list[str]) -> float:
    """Run the command to its end (progress and summary captured, as a pipe sees them); its wall time."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=cli_env(), cwd=ROOT)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"judgelab exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return wall


def recorded_requests(samples: Path, concurrency: int, latency_ms: float, tmp: Path) -> list[dict[str, Any]]:
    """The request bodies one `judgelab evaluate` run sends, as a stub recording them received them."""
    record = tmp / f"requests-{concurrency}.jsonl"
    record.unlink(missing_ok=True)
    with running_stub(latency_ms=latency_ms, max_concurrency=concurrency, record=str(record)) as base:
        run_cli(evaluate_command(samples, base, concurrency, tmp / f"recording-{concurrency}", None))
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def dependency_rounds(bodies: list[dict[str, Any]], samples: Path) -> list[list[list[dict[str, Any]]]]:
    """The bodies per sample, in rounds: first answer relevancy and completeness, then what waited on them (a body
    is placed by its prompt, rendered from the samples with the default prompt set; a re-ask comes a round later)."""
    from judges.api import load_samples
    from judges.judging.prompts import load_prompt_set

    prompts = load_prompt_set("default")
    where = {
        prompts.render(metric, sample): (n, metric)
        for n, (_, sample) in enumerate(load_samples(samples))
        for metric in prompts.templates
    }
    chains: dict[int, list[list[dict[str, Any]]]] = {}
    for body in bodies:
        n, metric = where[body["messages"][0]["content"]]
        stage = (0 if metric in FIRST_ROUND else 1) + (len(body["messages"]) > 1)
        rounds = chains.setdefault(n, [[], [], []])
        rounds[stage].append(body)
    return [[r for r in chains[n] if r] for n in sorted(chains)]


async def _bare(base: str, chains: list[list[list[dict[str, Any]]]], concurrency: int, rounds: bool) -> None:
    """POST the bodies (encoded as judgelab encodes them) through one pooled aiohttp session, replies parsed."""
    import aiohttp

    slots = asyncio.Semaphore(concurrency)
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), headers=headers) as session:

        async def one(body: dict[str, Any]) -> None:
            data = json.dumps(body, ensure_ascii=False).encode()
            async with slots, session.post(f"{base}/chat/completions", data=data) as response:
                json.loads(await response.read())

        async def chain(steps: list[list[dict[str, Any]]]) -> None:
            for step in steps:
                await asyncio.gather(*(one(body) for body in step))

        if rounds:
            await asyncio.gather(*(chain(steps) for steps in chains))
        else:
            await asyncio.gather(*(one(body) for steps in chains for step in steps for body in step))


def bare_span(base: str, chains: list[list[list[dict[str, Any]]]], concurrency: int, rounds: bool) -> dict[str, float]:
    """One bare loop against the stub at `base` (its counters reset first): the span it saw, and the requests."""
    stub_stats(base, reset=True)
    gc.collect()
    gc.freeze()  # the harness's heap (other rows' clients) is not walked by this loop's collections
    try:
        started = time.perf_counter()
        asyncio.run(_bare(base, chains, concurrency, rounds))
        wall = time.perf_counter() - started
    finally:
        gc.unfreeze()
    served = stub_stats(base, reset=True)
    return {"span_s": served["span_s"], "wall_s": wall, "requests": served["requests"]}


def cli_span(base: str, samples: Path, concurrency: int, out: Path) -> dict[str, float]:
    """One `judgelab evaluate` process against the stub at `base`: the span the stub saw, the process's wall time."""
    stub_stats(base, reset=True)
    wall = run_cli(evaluate_command(samples, base, concurrency, out, None))
    served = stub_stats(base, reset=True)
    return {"span_s": served["span_s"], "wall_s": wall, "requests": served["requests"]}


ROWS = ("judgelab evaluate (CLI process)", "bare aiohttp loop, same rounds", "bare aiohttp loop, all at once")


def measure_cli_path(
    base: str, samples: Path, concurrency: int, latency_ms: float, repeats: int, tmp: Path
) -> list[dict[str, Any]]:
    """The three rows at one concurrency, interleaved `repeats` times on the stub at `base` (after one untimed run
    of each); the CLI's requests are recorded by a run against a stub of their own."""
    chains = dependency_rounds(recorded_requests(samples, concurrency, latency_ms, tmp), samples)
    timed: dict[str, list[dict[str, float]]] = {row: [] for row in ROWS}
    for repeat in range(repeats + 1):
        runs = [
            cli_span(base, samples, concurrency, tmp / f"cli-{concurrency}-{repeat}"),
            bare_span(base, chains, concurrency, rounds=True),
            bare_span(base, chains, concurrency, rounds=False),
        ]
        if repeat:  # the first round warms the stub's parse cache and this process's aiohttp
            for row, run in zip(ROWS, runs):
                timed[row].append(run)
    rows = []
    for row in ROWS:
        spans = [r["span_s"] for r in timed[row]]
        requests = timed[row][-1]["requests"]
        bound = requests * latency_ms / 1000 / concurrency
        rows.append(
            {
                "tool": row,
                "concurrency": concurrency,
                "span_s": statistics.median(spans),
                "spans_s": spans,
                "wall_s": statistics.median(r["wall_s"] for r in timed[row]),
                "requests": requests,
                "bound_s": bound,
                "ratio_to_bound": statistics.median(spans) / bound,
            }
        )
    cli, bare = rows[0], rows[1]
    # the target's figure: the median, over the repeats, of each repeat's CLI span over its bare span
    ratios = [c["span_s"] / b["span_s"] for c, b in zip(timed[ROWS[0]], timed[ROWS[1]])]
    cli["vs_bare"] = statistics.median(ratios)
    cli["vs_bare_each"] = ratios
    rows[2]["vs_bare"] = rows[2]["span_s"] / bare["span_s"]
    return rows


def cached_evaluate(samples: Path, base: str, concurrency: int, tmp: Path, repeats: int = 5) -> dict[str, Any]:
    """The same `judgelab evaluate` command again with a reply cache holding every reply (filled by one run against
    a stub of its own, as fast as the one at `base`) and that stub stopped: its URL keys the replies, its port now
    refuses, so any call would stop the run. Whole-process wall times, and the run's own accounting."""
    cache = str(tmp / "evaluate-cache.sqlite")
    with running_stub(latency_ms=1, max_concurrency=concurrency) as filler:
        run_cli(evaluate_command(samples, filler, concurrency, tmp / "evaluate-fill", cache))
    times = []
    for n in range(repeats):
        times.append(run_cli(evaluate_command(samples, filler, concurrency, tmp / f"evaluate-cached-{n}", cache)))
    folder = tmp / f"evaluate-cached-{repeats - 1}"
    usage = json.loads((folder / "run.json").read_text())["usage"]
    if not (usage["calls"] == usage["cached_calls"] > 0):
        raise RuntimeError(f"the cached re-run made calls: {usage}")
    return {
        "median_s": statistics.median(times),
        "times_s": times,
        "repeats": repeats,
        "calls": usage["calls"],
        "files": sorted(p.name for p in folder.iterdir()),
    }


TARGETS = {32: 1.10, 128: 1.20}  # issue 29: the CLI's span at most this many times the bare loop's
CACHED_TARGET_S = 0.6


def cli_markdown(rows: list[dict[str, Any]], cached: dict[str, Any], samples: int, latency_ms: float) -> list[str]:
    """The CLI section of runtime.md: its table, and the fully cached re-run's line."""
    if not rows and not cached:
        return []
    lines = [
        "",
        "## The CLI path: `judgelab evaluate` as users run it, beside bare aiohttp loops",
        "",
        f"`python -m judges.cli.main evaluate samples.jsonl --judge openai/stub --api-base <stub> --concurrency C "
        f"--cache-mode off --out DIR` (the samples of the first {samples} unit tests as a JSONL file; the default "
        "prompt set of an API judge, `default`: GroUSE's four prompts and pipeline, shortened, not the PyPI "
        "package's original text, which is `--prompts grouse`; the lean client), a new process each time, its "
        "progress and summary going to a pipe. Time: the span the stub saw, from the first request it received to "
        "the last reply it sent (start-up and the run folder written after the last call are outside it; the "
        "process's whole wall time is shown beside). The bare loops send the very request bodies that a recorded "
        "`judgelab evaluate` run sent, encoded alike, through one pooled aiohttp session, C at a time, in this "
        "benchmark's process (heap frozen): `same rounds` keeps the pipeline's dependencies (each sample's answer "
        "relevancy and completeness, then the request that waited on them; every sample at once), the fair bound "
        "for a user and the one compared against; `all at once` drops them, as a check. Rows interleaved, after "
        f"one untimed round; median of the repeats. Bound = N x L / C, L = {latency_ms:g} ms. `CLI / bare`: the "
        "median over the repeats of each repeat's CLI span over its same-rounds bare span.",
        "",
        "| C | row | span (s) | requests | bound (s) | ratio to bound | CLI / bare (target) | process wall (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        c = row["concurrency"]
        versus = "-"
        if "vs_bare" in row and row["tool"].startswith("judgelab"):
            target = TARGETS.get(c)
            verdict = f" (<= {target:.2f}: {'met' if row['vs_bare'] <= target else 'NOT met'})" if target else ""
            versus = f"{row['vs_bare']:.3f}{verdict}"
        elif "vs_bare" in row:
            versus = f"{row['vs_bare']:.3f} (bare all at once / same rounds)"
        lines.append(
            f"| {c} | {row['tool']} | {row['span_s']:.3f} | {row['requests']} | {row['bound_s']:.3f} | "
            f"{row['ratio_to_bound']:.2f}x | {versus} | {row['wall_s']:.2f} |"
        )
    if cached:
        met = "met" if cached["median_s"] < CACHED_TARGET_S else "NOT met"
        lines += [
            "",
            f"Fully cached `judgelab evaluate` re-run: the same command with `--cache FILE` holding every reply (filled "
            "by one run against a stub, then stopped) and `--api-base` that stub's URL (the replies are keyed by "
            "it), where nothing listens any more, so any call would stop the run; whole "
            f"process (interpreter start, imports, {cached['calls']} calls from the cache, run folder written: "
            f"{', '.join(cached['files'])}): median {cached['median_s']:.3f} s over {cached['repeats']} runs "
            f"(target under {CACHED_TARGET_S} s: {met}; runs {', '.join(f'{t:.3f}' for t in cached['times_s'])}). "
            "The package's bytecode is compiled before the first run, as `pip install` does (this machine sets "
            "PYTHONDONTWRITEBYTECODE, which would make every process compile it anew).",
        ]
    return lines
