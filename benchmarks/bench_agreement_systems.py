"""`judgelab agreement` as the number of systems grows: wall time and peak memory at hundreds to thousands of systems.

Run: python benchmarks/bench_agreement_systems.py --cases 500x10000,500x25000,10000x10000 --out results/benchmarks
A case SxN is N labelled items split evenly among S systems (item k names system k mod S; 10000x10000 is ten
thousand one-item systems), continuous labels on [0, 1] around each system's quality and one judge score per item
that tracks the label, the system and noise; `judgelab agreement` (1,000 resamples) runs as a new process per case,
timed whole, with its CPU time and peak resident memory from the kernel (bench_agreement_scale.run_agreement).
Below 20,000 items every system-aware interval resamples items within their systems; above, the system-level ones
come from system means drawn from their normal law. Writes agreement_systems.json and agreement_systems.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_agreement_scale import run_agreement  # noqa: E402


def write_inputs(folder: Path, n_systems: int, n: int, seed: int = 0) -> tuple[Path, Path]:
    """Labelled items (id, label, system; no text) and a judge's score per item, as JSON Lines."""
    rng = np.random.default_rng(seed)
    system = np.arange(n) % n_systems
    quality = rng.uniform(0.3, 0.7, n_systems)[system]
    label = np.clip(quality + rng.normal(0, 0.15, n), 0, 1)
    score = np.clip(0.5 * label + 0.5 * quality + rng.normal(0, 0.1, n), 0, 1)
    labels, predictions = folder / f"labels-{n_systems}-{n}.jsonl", folder / f"predictions-{n_systems}-{n}.jsonl"
    with labels.open("w", encoding="utf-8") as handle:
        handle.writelines(
            f'{{"id": "i{k}", "metric": "faithfulness", "label": {label[k]:.6f}, "label_type": "continuous", '
            f'"scale": [0, 1], "system": "system-{system[k]}"}}\n'
            for k in range(n)
        )
    with predictions.open("w", encoding="utf-8") as handle:
        handle.writelines(f'{{"id": "i{k}", "score": {score[k]:.6f}}}\n' for k in range(n))
    return labels, predictions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="500x10000,500x25000,10000x10000", help="SYSTEMSxITEMS, comma-separated")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--out", default="results/benchmarks")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for case in args.cases.split(","):
            n_systems, n = (int(part) for part in case.split("x"))
            labels, predictions = write_inputs(folder, n_systems, n)
            measured = run_agreement(labels, [predictions], folder / f"out-{case}", args.resamples)
            rows.append({"systems": n_systems, "items": n, **measured})
            print(
                f"{n_systems:>6,} systems, {n:>7,} items: {measured['seconds']:.1f} s ({measured['cpu_seconds']:.1f} s "
                f"CPU, load {measured['load_average']}), {measured['peak_rss_mb']:.0f} MB peak RSS",
                flush=True,
            )
    result = {
        "command": f"python benchmarks/bench_agreement_systems.py --cases {args.cases} --resamples {args.resamples}",
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "resamples": args.resamples,
        "rows": rows,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "agreement_systems.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# `judgelab agreement` across many systems",
        "",
        f"`{result['command']}` on {result['machine']}: continuous labels (no text), items split evenly among the "
        f"systems, one judge score per item, {args.resamples} bootstrap resamples; one process per case, timed whole; "
        "CPU time (user + system) and peak RSS from the kernel, the load average the machine's.",
        "",
        "| systems | items | wall time (s) | CPU time (s) | load average | peak RSS (MB) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['systems']:,} | {r['items']:,} | {r['seconds']} | {r['cpu_seconds']} | {r['load_average']} | "
        f"{r['peak_rss_mb']} |"
        for r in rows
    ]
    (out / "agreement_systems.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
