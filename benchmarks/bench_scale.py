"""Scale benchmark: one process as the run grows 10x, the batch and Ray executors beside the local one, through the
CLI, against the loopback stub.

    python benchmarks/bench_scale.py --ray-calls 100000   # everything; --only sizes|batch|ray|offline for parts
    python benchmarks/bench_scale.py --only sizes --local-samples 1500 --prompts grouse   # one part (the rest kept)

Samples: the unit tests of unit_tests/test.jsonl, repeated with a numbered question so every call is distinct.
- batch: `judgelab evaluate` online, then with --executor batch (the stub's batch API, --batch-delay-s per batch),
  killed with SIGKILL while it polls its first batch and run again; records compared, batches and lines counted
  by the stub, costs at online and batch prices (gpt-4o-mini, whose batch prices are in LiteLLM's table).
- ray: the same samples with --executor ray (a local Ray started by the run: its start-up is in the wall time)
  beside --executor local; records compared; calls per second; the driver's peak RSS (VmHWM).
- sizes: --executor local at 15,000 and 150,000 samples: peak RSS, report.html's size, the time from the last
  record written to the end of the process (scale_local.py); with --prompts, another prompt set, kept apart; with
  --before, a scale.json of the same command on older code, its rows shown above.
- offline: the offline judge on one local llama.cpp server, then on two Ray actors; records compared.
Writes results/benchmarks/scale.json and scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import scale_local  # noqa: E402
from scale_compare import read_records  # noqa: E402
from scale_runs import JUDGE, Judgelab, make_samples, same  # noqa: E402
from stub_server import running_stub, stub_stats  # noqa: E402

PARTS = ("sizes", "batch", "ray", "offline")


def bench_batch(args: argparse.Namespace, tmp: Path, samples: Path) -> dict[str, Any]:
    with running_stub(latency_ms=args.latency_ms, max_concurrency=256, batch_delay_s=args.batch_delay_s) as base:
        judgelab = Judgelab(base, samples, tmp, args.concurrency)
        online = judgelab.run("online")
        online_requests = stub_stats(base, reset=True)["requests"]
        ledger = tmp / "batch.sqlite.batches" / "batches.json"
        started = time.perf_counter()
        process = judgelab.start("batch", "--executor", "batch")
        while not (ledger.is_file() and '"batch_id": "batch_' in ledger.read_text()):
            if process.poll() is not None:
                raise RuntimeError(f"the batch run ended early: {process.stderr.read() if process.stderr else ''}")
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        killed_after = time.perf_counter() - started
        created_before = stub_stats(base)["batches_created"]
        batch = judgelab.run("batch", "--executor", "batch")
        counts = stub_stats(base)
    return {
        "samples": args.samples,
        "online": online,
        "batch": batch,
        "batch_killed_after_s": round(killed_after, 2),
        "batches_created_before_kill": created_before,
        "batches_created": counts["batches_created"],
        "batch_lines": counts["batch_lines"],
        "online_requests": online_requests,
        "online_requests_during_batch": counts.get("requests", 0),
        "records_identical": same(tmp, "batch", "online"),
        "batch_delay_s": args.batch_delay_s,
    }


def bench_ray(args: argparse.Namespace, tmp: Path, samples: Path, tag: str) -> dict[str, Any]:
    with running_stub(latency_ms=args.latency_ms, max_concurrency=256) as base:
        judgelab = Judgelab(base, samples, tmp, args.concurrency)
        local = judgelab.run(f"local{tag}")
        ray = judgelab.run(f"ray{tag}", "--executor", "ray", "--ray-workers", str(args.ray_workers))
    return {
        "local": local,
        "ray": ray,
        "records_identical": same(tmp, f"ray{tag}", f"local{tag}"),
        "all_records_present": len(read_records(tmp / f"ray{tag}")) == len(read_records(tmp / f"local{tag}")),
    }


def batch_markdown(b: dict[str, Any]) -> list[str]:
    return [
        f"## Batch (`--executor batch`, {b['samples']:,} samples, each batch completing after "
        f"{b['batch_delay_s']:g} s)",
        "",
        "| run | wall s | calls | cost USD | driver peak RSS MB |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {row['wall_s']} | {row['calls']:,} | {row['cost_usd']} | {row['driver_peak_rss_mb']} |"
            for name, row in (("online (local)", b["online"]), ("batch, resumed after kill -9", b["batch"]))
        ),
        "",
        f"- records identical to the online run's (all fields but latency, cached flag and price): "
        f"**{b['records_identical']}**",
        f"- killed with SIGKILL {b['batch_killed_after_s']} s in, while polling its first batch "
        f"({b['batches_created_before_kill']} created); run again, it polled that batch and submitted only what "
        f"its replies unlocked: {b['batches_created']} batches created in all, {b['batch_lines']:,} lines for "
        f"{b['online_requests']:,} distinct calls (online: {b['online_requests']:,} requests); "
        f"{b['online_requests_during_batch']} online requests during the batch runs",
        f"- cost at batch prices {b['batch']['cost_usd']} USD vs {b['online']['cost_usd']} USD online "
        f"({b['batch']['cost_usd'] / max(b['online']['cost_usd'], 1e-12):.2f}x)",
        "",
    ]


def markdown(result: dict[str, Any]) -> str:
    b, r = result.get("batch"), result.get("ray")
    lines = [
        "# Scale: one process as the run grows, batch and Ray executors beside the local one",
        "",
        f"{result['machine']}; {result['date']}. `judgelab evaluate` through the CLI against the loopback stub "
        f"(latency {result['latency_ms']:g} ms, --concurrency {result['concurrency']}), judge {JUDGE} (priced by "
        "LiteLLM's table). Made by `python benchmarks/bench_scale.py --ray-calls 100000`; peak RSS is the "
        "process's VmHWM, read every 0.2 s." + (f" {result['note']}" if result.get("note") else ""),
        "",
    ]
    lines += scale_local.sizes_markdown(result)
    if b is not None:
        lines += batch_markdown(b)
    for tag, section in (("", r), ("_large", result.get("ray_large"))):
        if section is None:
            continue
        lines += [
            f"## Ray (`--executor ray`, {section['samples']:,} samples, {section['ray']['calls']:,} calls, "
            f"{result['ray_workers']} workers on a local Ray)" + (" — large run" if tag else ""),
            "",
            "| executor | wall s | calls | calls/s | driver peak RSS MB |",
            "|---|---|---|---|---|",
            *(
                f"| {name} | {row['wall_s']} | {row['calls']:,} | {row['calls_per_s']} | {row['driver_peak_rss_mb']} |"
                for name, row in (("local", section["local"]), ("ray", section["ray"]))
            ),
            "",
            f"- records identical to the local run's: **{section['records_identical']}**; every record present: "
            f"**{section['all_records_present']}**",
            "- Ray's wall time includes starting a local Ray (about 10 s here) and one Ray Data job per round of "
            "dependent steps (3 for the GroUSE pipeline) for each window of 2,000 samples (`--executor-window`)",
            "",
        ]
    large = result.get("ray_large")
    if r is not None and large is not None:
        lines += [
            f"Driver peak RSS from {r['ray']['calls']:,} to {large['ray']['calls']:,} calls: ray "
            f"{r['ray']['driver_peak_rss_mb']} → {large['ray']['driver_peak_rss_mb']} MB "
            f"({large['ray']['driver_peak_rss_mb'] / r['ray']['driver_peak_rss_mb']:.2f}x), local "
            f"{r['local']['driver_peak_rss_mb']} → {large['local']['driver_peak_rss_mb']} MB "
            f"({large['local']['driver_peak_rss_mb'] / r['local']['driver_peak_rss_mb']:.2f}x): the Ray driver holds one "
            "window's pending calls beside Ray's own libraries, whatever the run's size.",
            "",
        ]
    if r is not None and result.get("ray_large") is None:
        lines += ["The 100,000-call Ray run was not made in this session (run with --ray-calls 100000).", ""]
    lines += scale_local.offline_markdown(result)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--batch-delay-s", type=float, default=3.0)
    parser.add_argument("--ray-workers", type=int, default=2)
    parser.add_argument("--ray-calls", type=int, default=0, help="also a Ray run of about this many calls")
    parser.add_argument("--local-samples", type=int, default=15000, help="N: one process at N and 10 N samples")
    parser.add_argument("--prompts", help="the sizes part's prompt set (e.g. grouse; default: the judge's default)")
    parser.add_argument("--before", metavar="SCALE_JSON", help="the sizes figures of older code, shown beside")
    parser.add_argument("--before-label", default="before", help="how the table names the older code")
    parser.add_argument("--offline-samples", type=int, default=6, help="the offline judge on Ray actors (0: skip)")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS), help="the parts to run")
    parser.add_argument("--note", default="", help="a line saved with the figures (e.g. what else ran)")
    parser.add_argument("--out", default=str(ROOT / "results" / "benchmarks"))
    args = parser.parse_args()
    saved = Path(args.out) / "scale.json"
    # a run of some parts keeps the figures of the others, as last measured
    kept = json.loads(saved.read_text()) if set(args.only) != set(PARTS) and saved.is_file() else {}
    result: dict[str, Any] = kept or {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "latency_ms": args.latency_ms,
        "concurrency": args.concurrency,
        "ray_workers": args.ray_workers,
        "note": args.note,
    }
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        samples = make_samples(args.samples, tmp / "samples.jsonl")
        if "sizes" in args.only:
            result[scale_local.sizes_key(args.prompts)] = scale_local.bench_sizes(args, tmp)
        if "batch" in args.only:
            result["batch"] = bench_batch(args, tmp, samples)
            print(json.dumps(result["batch"]), flush=True)
        if "ray" in args.only:
            result["ray"] = {"samples": args.samples, **bench_ray(args, tmp, samples, "")}
            print(json.dumps(result["ray"]), flush=True)
        if "offline" in args.only and args.offline_samples:
            result["offline_ray"] = scale_local.bench_offline_ray(args, tmp)
        if args.ray_calls and "ray" in args.only:
            n = args.ray_calls // 3  # about three calls per sample in the GroUSE pipeline
            large = make_samples(n, tmp / "large.jsonl")
            result["ray_large"] = {"samples": n, **bench_ray(args, tmp, large, "_large")}
            print(json.dumps(result["ray_large"]), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "scale.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "scale.md").write_text(markdown(result))
    print((out / "scale.md").read_text())


if __name__ == "__main__":
    main()
