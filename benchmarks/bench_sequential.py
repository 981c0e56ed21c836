"""`validate --sequential` against a Clopper-Pearson bound re-checked after every label, on 2,000 seeded label orders.

The set: RAGChecker's meta-evaluation (../shared/datasets/ragchecker, Apache-2.0): 280 response pairs, each labelled
by two annotators with `overall_label` in -2..2 (the preference for model2's answer). A row is one annotator's label;
its binary label is 1 when the annotator prefers model2 (label > 0), 0 when model1 (< 0); ties are left out. The
judge is RAGChecker itself, its released `overall` scores (`baseline_ragchecker.json`) cut at 0: it says 1 when
model2's score is higher, 0 when lower (equal scores left out). The statistic is the judge's agreement (accuracy) on
the rows; its "true rate" is the rate on the whole set.

Each of 2,000 seeded orders is a random order of the rows (a team labelling the set one row after another); a
certificate is looked at after every label. Bounds are decided through tables per number of labels n (the fewest
right verdicts that clear the bar at n), so a look is one comparison.

Run: python benchmarks/bench_sequential.py --out results/benchmarks
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.agreement import confidence_sequence as cs  # noqa: E402
from judges.agreement.label_plan import POWER, fixed_n, sequential_n, smallest_certifying_count  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "ragchecker"
ORDERS, SEED, ALPHA = 2000, 2026, 0.05


def rows(folder: Path) -> np.ndarray:
    """Whether the judge agrees with each labelled row (ties of either side left out), in the file's order."""
    human = json.loads((folder / "human_labeled_data.json").read_text(encoding="utf-8"))
    metric = {r["instance_id"]: r for r in json.loads((folder / "baseline_ragchecker.json").read_text("utf-8"))}
    right = []
    for row in human:
        pair = metric[row["instance_id"]]
        said = pair["model2"]["ragchecker"]["overall_label"] - pair["model1"]["ragchecker"]["overall_label"]
        if row["overall_label"] != 0 and said != 0:
            right.append((row["overall_label"] > 0) == (said > 0))
    return np.asarray(right, dtype=bool)


def tables(n: int, bar: float) -> tuple[np.ndarray, np.ndarray]:
    """For t = 1..n: the fewest right verdicts certifying at t, by the confidence sequence and by Clopper-Pearson."""
    t = np.arange(1, n + 1)
    k = np.arange(0, n + 1)
    grid_t, grid_k = np.meshgrid(t, k, indexing="ij")
    valid = grid_k <= grid_t
    certifies = valid & (grid_k > bar * grid_t) & cs.excludes(grid_k, grid_t, bar, ALPHA)
    sequence = np.where(certifies.any(axis=1), certifies.argmax(axis=1), n + 1)
    return sequence, smallest_certifying_count(t, bar, ALPHA)


def first_look(successes: np.ndarray, needed: np.ndarray) -> np.ndarray:
    """Per order, the labels at which the bound first cleared the bar (0: never)."""
    hit = successes >= needed[None, :]
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)


def simulate(right: np.ndarray, bar: float) -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    orders = rng.permuted(np.tile(right, (ORDERS, 1)), axis=1)
    successes = np.cumsum(orders, axis=1)
    sequence_table, exact_table = tables(right.size, bar)
    sequential = first_look(successes, sequence_table)
    rechecked = first_look(successes, exact_table)
    out: dict[str, Any] = {
        "bar": bar,
        "sequential_certified": float(np.mean(sequential > 0)),
        "rechecked_certified": float(np.mean(rechecked > 0)),
    }
    if right.mean() > bar:
        stops = np.where(sequential > 0, sequential, np.iinfo(np.int64).max)
        planned_fixed = fixed_n(bar, float(right.mean()), POWER, ALPHA)
        at_fixed = successes[:, planned_fixed - 1] >= exact_table[planned_fixed - 1] if planned_fixed else None
        share_by_n = np.mean(successes >= exact_table[None, :], axis=0)  # fixed-n plans: certified at that n
        reaching = np.flatnonzero(share_by_n >= POWER)
        half = np.flatnonzero(share_by_n >= 0.5)
        out |= {
            "sequential_median": float(np.median(stops)) if np.mean(sequential > 0) > 0.5 else None,
            "sequential_80": int(np.sort(stops)[int(np.ceil(POWER * ORDERS)) - 1]),
            "plan_sequential_80": sequential_n(bar, float(right.mean()), POWER, ALPHA),  # the CLI plan's own seed
            "plan_fixed_80": planned_fixed,
            "fixed_certified_at_plan": None if at_fixed is None else float(np.mean(at_fixed)),
            "fixed_80": int(reaching[0]) + 1 if reaching.size else None,
            "fixed_median": int(half[0]) + 1 if half.size else None,
        }
    return out


def markdown(right: np.ndarray, above: dict[str, Any], below: dict[str, Any]) -> str:
    rate = right.mean()
    lines = [
        "# Certifying as labels arrive: `validate --sequential` on 2,000 label orders",
        "",
        "Produced by `python benchmarks/bench_sequential.py --out results/benchmarks`.",
        "",
        f"Set: RAGChecker meta-evaluation ({right.size} labelled rows: 280 pairs x 2 annotators, ties left out); "
        "judge: RAGChecker's released `overall` scores, model2 minus model1 cut at 0; statistic: the judge's "
        f"agreement with the label (accuracy), {int(right.sum())}/{right.size} = {rate:.4f} on the whole set. "
        f"{ORDERS:,} seeded random orders of the rows (seed {SEED}); a look after every label; one-sided 95%.",
        "",
        f"## Bar just above the true rate ({above['bar']:g} > {rate:.4f}): certified at some look (should be <= 5%)",
        "",
        "| bound | orders certified at some look |",
        "|---|---|",
        f"| `--sequential` (beta-binomial mixture confidence sequence) | {above['sequential_certified']:.1%} |",
        f"| Clopper-Pearson re-checked after every label | {above['rechecked_certified']:.1%} |",
        "",
        f"## Bar clearly below ({below['bar']:g}): labels to certify",
        "",
        "| | labels |",
        "|---|---|",
        f"| `--sequential`: median labels at which it certifies | {below['sequential_median']:g} |",
        f"| fixed-n: smallest n certified in half the orders (simulated) | {below['fixed_median']} |",
        f"| `--sequential`: labels by which 80% of orders have certified (simulated) | {below['sequential_80']} |",
        f"| `validate --plan`, sequential (80%) | {below['plan_sequential_80']} |",
        f"| fixed-n: smallest n certified in 80% of orders (simulated) | {below['fixed_80']} |",
        f"| `validate --plan`, fixed-n (80%, exact) | {below['plan_fixed_80']} |",
        f"| fixed-n at the plan's n: orders certified | {below['fixed_certified_at_plan']:.1%} |",
        f"| orders `--sequential` certified by the last label | {below['sequential_certified']:.1%} |",
        "",
        "Plan within 20% of the simulation: sequential "
        f"{abs(below['plan_sequential_80'] / below['sequential_80'] - 1):.1%} off, fixed-n "
        f"{abs(below['plan_fixed_80'] / below['fixed_80'] - 1):.1%} off (`judgelab validate --plan --min "
        f"accuracy={below['bar']:g} --expect accuracy={rate:.4f}`).",
        "",
        "The plan assumes labels drawn independently from a population with the expected rate; the orders here draw "
        "the set's rows without replacement, so late in an order the observed rate is closer to the set's own.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--out", default="results/benchmarks")
    parser.add_argument("--above", type=float, default=0.80, help="the bar just above the true rate")
    parser.add_argument("--below", type=float, default=0.65, help="the bar clearly below it")
    args = parser.parse_args()
    right = rows(Path(args.data))
    above, below = simulate(right, args.above), simulate(right, args.below)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = {"rows": int(right.size), "rate": float(right.mean()), "above": above, "below": below}
    (out / "sequential.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    (out / "sequential.md").write_text(markdown(right, above, below), encoding="utf-8")
    print(markdown(right, above, below))


if __name__ == "__main__":
    main()
