"""Parts of the scale benchmark: one process as the run grows 10x (memory, report, time after the last call), and
the offline judge on two Ray actors beside one local server."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scale_runs import Judgelab, make_samples, same
from stub_server import running_stub


def sizes_key(prompts: str | None) -> str:
    """Where a sizes part is kept in scale.json: "sizes" with the judge's default prompts, else "sizes_<prompts>"."""
    return "sizes" if not prompts else f"sizes_{prompts}"


def bench_sizes(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """`judgelab evaluate` with the local executor at N and 10 N samples, reply cache on (as users run it); with
    --prompts, that prompt set; with --before, the figures of the same command on older code kept beside."""
    rows = []
    extra = ("--prompts", args.prompts) if args.prompts else ()
    with running_stub(latency_ms=args.latency_ms, max_concurrency=256) as base:
        for n in (args.local_samples, 10 * args.local_samples):
            samples = make_samples(n, tmp / f"sized-{n}.jsonl")
            row = Judgelab(base, samples, tmp, args.concurrency).run(f"sized-{n}", *extra)
            rows.append({"samples": n, **row})
            samples.unlink()
            print(rows[-1], flush=True)
    small, large = rows
    result: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "prompts": args.prompts or "default",
        "note": args.note,
        "runs": rows,
        "peak_ratio": round(large["driver_peak_rss_mb"] / small["driver_peak_rss_mb"], 2),
    }
    if args.before:
        before = json.loads(Path(args.before).read_text())[sizes_key(args.prompts)]
        result["before"] = {"label": args.before_label, "runs": before["runs"], "peak_ratio": before["peak_ratio"]}
    return result


def bench_offline_ray(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """The offline judge (SmolLM2-135M on llama.cpp): one local server, then two Ray actors with a server each."""
    samples = make_samples(args.offline_samples, tmp / "offline.jsonl")
    judgelab = Judgelab(None, samples, tmp, 1, judge="local/smollm2-135m")
    local = judgelab.run("offline-local")
    ray = judgelab.run("offline-ray", "--executor", "ray", "--ray-workers", "2")
    return {
        "samples": args.offline_samples,
        "local": local,
        "ray": ray,
        "records_identical": same(tmp, "offline-ray", "offline-local"),
    }


def sizes_markdown(result: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for key in sorted(k for k in result if k.startswith("sizes")):
        lines += _sized(result[key])
    return lines


def made_by(sized: dict[str, Any]) -> str:
    """The line naming the command, the date and the note of a sizes part run alone."""
    small = sized["runs"][0]["samples"]
    command = f"python benchmarks/bench_scale.py --only sizes --local-samples {small}"
    command += f" --prompts {sized['prompts']}" if sized.get("prompts", "default") != "default" else ""
    command += " --before SCALE_JSON" if sized.get("before") else ""
    return f"Made by `{command}` on {sized['date']}. {sized.get('note') or ''}".rstrip()


def _sized(sized: dict[str, Any]) -> list[str]:
    """One sizes part: its table (and the older code's rows above its own, when it has them) and its ratio."""
    small, large = sized["runs"]
    before = sized.get("before")
    prompts = sized.get("prompts", "default")
    lines = [
        f"## One process, local executor: {small['samples']:,} and {large['samples']:,} samples"
        + (f", `--prompts {prompts}`" if prompts != "default" else ""),
        "",
        *([made_by(sized), ""] if sized.get("date") else []),
        ("| code " if before else "")
        + "| samples | calls | wall s | calls/s | peak RSS MB | after the last record s | share of the run "
        "| report.html MB | results.jsonl MB |",
        ("|---" if before else "") + "|---|---|---|---|---|---|---|---|---|",
    ]
    tables = [(before["label"], before["runs"]), ("this code", sized["runs"])] if before else [("", sized["runs"])]
    for label, runs in tables:
        lines += [
            (f"| {label} " if before else "")
            + f"| {r['samples']:,} | {r['calls']:,} | {r['wall_s']} | {r['calls_per_s']} | "
            f"{r['driver_peak_rss_mb']} | {r['after_last_record_s']} | "
            f"{100 * r['after_last_record_s'] / r['wall_s']:.1f}% | {r['report_html_mb']} | "
            f"{r['results_jsonl_mb']} |"
            for r in runs
        ]
    lines += [
        "",
        f"- peak memory at 10x the samples: **{sized['peak_ratio']}x**"
        + (f" ({before['label']}: {before['peak_ratio']}x)" if before else "")
        + " (the samples are checked in one pass and read again from the file as the run reaches them; records "
        "go to results.jsonl as they finish)",
        "- after the last record: run.json, summary.md and report.html, from one pass over results.jsonl"
        + (" (summary.md reads only its first samples)" if sized.get("date") else ""),
        "",
    ]
    return lines


def offline_markdown(result: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    offline = result.get("offline_ray")
    if offline:
        lines += [
            f"## The offline judge on two Ray actors ({offline['samples']} samples, local/smollm2-135m)",
            "",
            "| executor | wall s | calls | driver peak RSS MB |",
            "|---|---|---|---|",
            *(
                f"| {name} | {row['wall_s']} | {row['calls']:,} | {row['driver_peak_rss_mb']} |"
                for name, row in (
                    ("local (one llama.cpp server)", offline["local"]),
                    ("ray (two actors)", offline["ray"]),
                )
            ),
            "",
            f"- records identical: **{offline['records_identical']}** (each actor starts its own llama.cpp server; "
            "here the two servers share the same 2 cores)",
            "",
        ]
    return lines
