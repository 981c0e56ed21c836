"""Time and peak memory of the system-aware figures, the corrected estimates and the paired comparison of two judges
as the labelled set grows (continuous labels, 9 systems), each size in a fresh process.

Run: python benchmarks/bench_agreement_figures.py --sizes 10000 100000 1000000 --resamples 100 --out results/benchmarks
Each size times `system_agreement` (partial Pearson and Spearman, system-level figures), `estimates` (PPI++ with
the judge's grades on ten times as many unlabelled items) and `compare` of two judges on the Pearson statistic
(paired bootstrap in bounded blocks), with `--resamples` resamples; peak RSS is the process's maximum resident set.
Writes agreement_figures.json and agreement_figures.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_size(n: int, resamples: int) -> dict[str, float]:
    """Run the three figures on n synthetic items (seeded) in this process; seconds each and the peak RSS in MB."""
    import resource

    import numpy as np

    from judges.agreement.estimate import estimates
    from judges.agreement.paired import compare
    from judges.agreement.result import MeasuredRows
    from judges.agreement.statistics import PEARSON
    from judges.agreement.systems import system_agreement
    from judges.labels.schema import LabelType

    rng = np.random.default_rng(0)
    systems = np.array([f"system-{k}" for k in range(9)])[rng.integers(0, 9, n)]
    human = rng.random(n)
    judge = human + rng.normal(0, 0.3, n)
    other = human + rng.normal(0, 0.5, n)
    out: dict[str, float] = {"items": n, "resamples": resamples}
    start = time.perf_counter()
    system_agreement(LabelType.CONTINUOUS, list(systems), human, judge, resamples=resamples, seed=0, confidence=0.95)
    out["system_aware_s"] = time.perf_counter() - start
    start = time.perf_counter()
    estimates(human, judge, rng.random(10 * n), binary=False, resamples=resamples, seed=0, confidence=0.95)
    out["estimates_s"] = time.perf_counter() - start

    class Measured:  # the two fields compare reads of a measured result
        def __init__(self, values: np.ndarray) -> None:
            self.rows = MeasuredRows(human, {"value": values}, np.arange(n), [PEARSON])

    start = time.perf_counter()
    compare(Measured(judge), Measured(other), resamples=resamples, seed=0)  # type: ignore[arg-type]
    out["paired_s"] = time.perf_counter() - start
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "benchmarks")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.resamples)))
        return
    load = os.getloadavg()[0]
    rows = []
    for n in args.sizes:
        command = [sys.executable, __file__, "--one", str(n), "--resamples", str(args.resamples)]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env={**os.environ})
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    result = {"load_average_at_start": load, "load_average_at_end": os.getloadavg()[0], "rows": rows}
    (args.out / "agreement_figures.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    first = rows[0]
    lines = [
        "| items | system-aware (s) | estimates (s) | paired (s) | peak RSS (MB) | time ratio to the first | "
        "memory ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        total = row["system_aware_s"] + row["estimates_s"] + row["paired_s"]
        first_total = first["system_aware_s"] + first["estimates_s"] + first["paired_s"]
        lines.append(
            f"| {row['items']:,} | {row['system_aware_s']:.2f} | {row['estimates_s']:.2f} | {row['paired_s']:.2f} | "
            f"{row['peak_rss_mb']:.0f} | {total / first_total:.1f}x | {row['peak_rss_mb'] / first['peak_rss_mb']:.1f}x |"
        )
    header = (
        f"System-aware figures, corrected estimates and paired comparison, {args.resamples} resamples, 9 systems "
        f"(load average {load:.1f} at the start, {result['load_average_at_end']:.1f} at the end):"
    )
    (args.out / "agreement_figures.md").write_text("\n".join([header, "", *lines, ""]), encoding="utf-8")


if __name__ == "__main__":
    main()
