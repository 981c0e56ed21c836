"""`judgelab evaluate FILE`: grade your own grounded-QA samples; writes results.jsonl, report.json, summary.md."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from judges.errors import ConfigError
from judges.cli.options import judge_options


def summarize_grades(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per metric: graded / null / failed counts and the mean grade of the graded ones."""
    out = {}
    for metric in rows[0]["metrics"] if rows else []:
        states = [row["metrics"][metric]["verdict"] for row in rows]
        grades = [v["grade"] for v in states if v["state"] == "grade"]
        out[metric] = {"graded": len(grades), "null": sum(v["state"] == "null" for v in states),
                       "failed": sum(v["state"] == "failure" for v in states),
                       "mean": statistics.fmean(grades) if grades else None}
    return out


def run(args: argparse.Namespace) -> int:
    from judges.jsonl import append_jsonl
    from judges.judging.samples import load_samples
    from judges.judging.factory import default_run_dir, open_judge

    samples = load_samples(args.file)
    if args.limit is not None:
        if args.limit < 1:
            raise ConfigError("--limit must be at least 1")
        samples = samples[:args.limit]
    out_dir = Path(args.out) if args.out else default_run_dir(Path("results/runs"), "evaluate", args.judge)
    out_dir.mkdir(parents=True, exist_ok=True)
    options = judge_options(args)
    with open_judge(options) as session:
        for _, sample in samples:
            session.judge.render_all(sample)
        from tqdm import tqdm

        async def go() -> list[dict[str, Any]]:
            in_flight = asyncio.Semaphore(session.runtime.items_in_flight(4))

            async def one(order: int, sample_id: str, sample: Any) -> dict[str, Any]:
                async with in_flight:  # earlier samples' calls first, so rows arrive steadily
                    records = await session.judge.judge(sample, priority=order)
                return {"id": sample_id, "metrics": {m: r.to_dict() for m, r in records.items()}}

            rows = []
            with (out_dir / "results.jsonl").open("w", encoding="utf-8") as handle, \
                    tqdm(total=len(samples), desc="samples", file=sys.stderr, disable=None) as bar:
                jobs = [asyncio.ensure_future(one(n, i, s)) for n, (i, s) in enumerate(samples)]
                for finished in asyncio.as_completed(jobs):
                    row = await finished
                    append_jsonl(handle, row)
                    rows.append(row)
                    bar.update()
            return rows

        rows = asyncio.run(go())
        report = {"run": {"judge": session.model.name, "prompts": session.prompts.name, "data": args.file,
                          "prompt_sha256": session.prompts.hashes(), "params": options.public_params(),
                          "n_samples": len(samples)},
                  "summary": summarize_grades(rows), "usage": vars(session.runtime.usage)}
    (out_dir / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    lines = ["| metric | graded | null | failed | mean grade |", "|---|---|---|---|---|"]
    for metric, stats in report["summary"].items():
        mean = "n/a" if stats["mean"] is None else f"{stats['mean']:.2f}"
        lines.append(f"| {metric} | {stats['graded']} | {stats['null']} | {stats['failed']} | {mean} |")
    (out_dir / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {out_dir}/results.jsonl, report.json, summary.md")
    return 0
