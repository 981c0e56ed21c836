"""`judgelab agreement` as the labelled set grows: wall time and peak memory at N, 10 N and 100 N items.

Run: python benchmarks/bench_agreement_scale.py --sizes 10000,100000,1000000 --out results/benchmarks
Builds synthetic continuous labels on [0, 1] (one annotator, no text; each item names one of nine systems, whose
answers differ in quality) and a judge's score per item that tracks the label, the system and noise, then runs
the command a user types (`python -m judges.cli.main agreement --labels L --predictions P`, 1,000 resamples) in a
new process per size, timed as a whole, its CPU time and peak resident memory read from the kernel (`os.wait4`). It measures
whatever the command reports (the plain figures and, the items naming their systems, the partial and system-level
ones), so figures added to `agreement` are measured too. A second case (`--cases`) gives two judges' scores on the
labelled items and on a tenth as many unlabelled ones, so the corrected estimates (PPI++) and the paired comparison
of the two judges run as well. Writes agreement_scale.json and agreement_scale.md, with each size's ratios to the
smallest of its case.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = 9


CASES = {"one": "one judge", "two": "two judges, +10% unlabelled"}


def write_inputs(folder: Path, n: int, case: str, seed: int = 0) -> tuple[Path, list[Path]]:
    """Labelled items (id, label, system; no text) and each judge's score per item, as JSON Lines; in case "two",
    two judges (the second noisier) who also graded n / 10 items without a label."""
    rng = np.random.default_rng(seed)
    graded = n if case == "one" else n + n // 10
    system = rng.integers(0, SYSTEMS, graded)
    quality = np.linspace(0.3, 0.7, SYSTEMS)[system]
    label = np.clip(quality + rng.normal(0, 0.15, graded), 0, 1)
    labels = folder / f"labels-{n}.jsonl"
    with labels.open("w", encoding="utf-8") as handle:
        handle.writelines(
            f'{{"id": "i{k}", "metric": "faithfulness", "label": {label[k]:.6f}, "label_type": "continuous", '
            f'"scale": [0, 1], "system": "system-{system[k]}"}}\n'
            for k in range(n)
        )
    predictions = []
    for judge, noise in enumerate((0.1, 0.2)[: 1 if case == "one" else 2]):
        score = np.clip(0.5 * label + 0.5 * quality + rng.normal(0, noise, graded), 0, 1)
        path = folder / f"predictions-{n}-{judge}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            handle.writelines(f'{{"id": "i{k}", "score": {score[k]:.6f}}}\n' for k in range(graded))
        predictions.append(path)
    return labels, predictions


def run_agreement(labels: Path, predictions: list[Path], out: Path, resamples: int) -> dict[str, Any]:
    """One `judgelab agreement` process: its wall time, peak RSS and the figures it reported."""
    command = [
        sys.executable,
        "-m",
        "judges.cli.main",
        "agreement",
        "--labels",
        str(labels),
        *(part for path in predictions for part in ("--predictions", str(path))),
        "--resamples",
        str(resamples),
        "--out",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"judgelab agreement exited {os.waitstatus_to_exitcode(status)}: {stderr[-500:]}")
    report = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    [metric] = report["metrics"].values()
    system_aware = metric.get("system_aware") or {}
    figures = {f["statistic"]: f for f in metric["judge"] + [v for v in system_aware.values() if isinstance(v, dict)]}
    for name in ("judge_only", "labelled_only", "ppi") if metric.get("estimate") else ():
        figures[f"estimate {name}"] = metric["estimate"][name]
    for difference in [d for diffs in report.get("comparison", {}).values() for d in diffs]:
        figures[f"A - B {difference['statistic']}"] = difference
    return {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "load_average": round((load_before + os.getloadavg()[0]) / 2, 1),  # other processes sharing the cores
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # kilobytes on Linux
        "figures": sorted(figures),
        "notes": {name: f["note"] for name, f in figures.items() if f.get("note")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="item counts, comma-separated")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--cases", default="one,two", help="one (one judge), two (two judges, +10%% unlabelled)")
    parser.add_argument("--out", default="results/benchmarks")
    parser.add_argument("--name", default="agreement_scale", help="the result files' name (NAME.json, NAME.md)")
    parser.add_argument("--goal-mb", type=float, default=None, help="a peak RSS goal each run is checked against")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for case in args.cases.split(","):
            for n in sizes:
                labels, predictions = write_inputs(folder, n, case)
                measured = run_agreement(labels, predictions, folder / f"out-{case}-{n}", args.resamples)
                rows.append({"case": CASES[case], "items": n, **measured})
                print(
                    f"{CASES[case]}, {n:>9,} items: {measured['seconds']:.1f} s ({measured['cpu_seconds']:.1f} s CPU, "
                    f"load {measured['load_average']}), {measured['peak_rss_mb']:.0f} MB peak RSS",
                    flush=True,
                )
                for path in [labels, *predictions]:
                    path.unlink()
    for row in rows:
        first = next(r for r in rows if r["case"] == row["case"])
        row["time_ratio"] = round(row["seconds"] / first["seconds"], 2)
        row["cpu_ratio"] = round(row["cpu_seconds"] / first["cpu_seconds"], 2)
        row["memory_ratio"] = round(row["peak_rss_mb"] / first["peak_rss_mb"], 2)
    result = {
        "command": (
            f"python benchmarks/bench_agreement_scale.py --sizes {args.sizes} --resamples {args.resamples} "
            f"--cases {args.cases}"
            + (f" --name {args.name}" if args.name != "agreement_scale" else "")
            + (f" --goal-mb {args.goal_mb:g}" if args.goal_mb is not None else "")
        ),
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "systems": SYSTEMS,
        "resamples": args.resamples,
        "rows": rows,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# `judgelab agreement` at scale",
        "",
        f"`{result['command']}` on {result['machine']}: continuous labels (no text, {SYSTEMS} systems), one judge "
        f"score per item (or two judges' scores, also on a tenth as many unlabelled items), {args.resamples} "
        "bootstrap resamples; one process per size, timed whole (reading the files, every figure and interval, "
        "writing the report); CPU time (user + system) and peak RSS from the "
        "kernel. The load average is the machine's (other processes sharing its cores): where it is above the core "
        "count, wall time stretches and CPU time is the fairer figure.",
        "",
        "| case | items | wall time (s) | CPU time (s) | load average | peak RSS (MB) | wall ratio | CPU ratio | "
        "memory ratio | figures |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['case']} | {r['items']:,} | {r['seconds']} | {r['cpu_seconds']} | {r['load_average']} | {r['peak_rss_mb']} | "
        f"{r['time_ratio']} | {r['cpu_ratio']} | {r['memory_ratio']} | {', '.join(r['figures'])} |"
        for r in rows
    ]
    if args.goal_mb is not None:
        over = [r for r in rows if r["peak_rss_mb"] >= args.goal_mb]
        verdict = "every run stays under it" if not over else f"{len(over)} run(s) reach it or more"
        lines += ["", f"Peak RSS goal: under {args.goal_mb:,.0f} MB; {verdict}."]
    notes = {note for r in rows for note in r["notes"].values()}
    if notes:
        lines += ["", *(f"Note in the report: {note}." for note in sorted(notes))]
    (out / f"{args.name}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
