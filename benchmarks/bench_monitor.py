"""`cascade monitor` on examples/cascade: alarms on a shifted stream, false alarms on a clean one, 200 seeds each.

The example: 600 answers with a human faithfulness label and two simulated judges' probabilities (cheap, strong).
The cascade is calibrated by `judgelab cascade calibrate` on its 200 calibration labels (target 0.85, delta 0.1) and
applied by `judgelab cascade apply` to all 600 answers, in a temporary folder; the monitor reads that decisions.jsonl
with the command's own reader. Each seed draws a stream of 10,000 answers from the 600 with replacement (so the
deployed population is the example's 600); audit labels (the answers' human labels) are taken on a random 10% of the
kept verdicts. The shift: from the 2,000th item on, the cheap judge's verdicts are flipped on 30% of items (its score
p becomes 1 - p: its confidence, hence what it keeps, is unchanged; only its call changes). The monitor's core is
called on the arrays directly, with the command's defaults (windows of 200 audit labels and of 1,000 decisions, 20
planned windows, a false-alarm budget of 0.05 over all tests).

Run: python benchmarks/bench_monitor.py --out results/benchmarks
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.cascade.monitor_files import calibrated_of, read_decisions  # noqa: E402
from judges.cascade.monitor_stream import Calibrated, Stream, monitor  # noqa: E402
from judges.cascade.monitoring import AGREEMENT, Plan  # noqa: E402
from judges.cli.main import main as judgelab  # noqa: E402

EXAMPLE = ROOT / "examples" / "cascade"
SEEDS, LENGTH, SHIFT_AT, FLIPPED, AUDITED, TARGET = 200, 10_000, 2_000, 0.3, 0.1, 0.85


def deployed(folder: Path) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray]:
    """The calibration, and per answer of the example: who decided it, its verdict and its human label."""
    labels = ["--label-type", "binary", "--metric", "faithfulness"]
    judges = [f"--predictions=cheap={EXAMPLE / 'cheap.jsonl'}", f"--predictions=strong={EXAMPLE / 'strong.jsonl'}"]
    calibrate = ["cascade", "calibrate", "--labels", str(EXAMPLE / "labels-calibrate.jsonl"), *labels, *judges]
    assert judgelab([*calibrate, "--target", str(TARGET), "--out", str(folder / "calibration")]) == 0
    calibration_file = folder / "calibration" / "calibration.json"
    assert judgelab(["cascade", "apply", str(calibration_file), *judges, "--out", str(folder / "applied")]) == 0
    calibration = json.loads(calibration_file.read_text(encoding="utf-8"))
    names = tuple(j["name"] for j in calibration["judges"])
    ids, stream, _ = read_decisions(str(folder / "applied" / "decisions.jsonl"), names)
    human = {}
    for name in ("labels-calibrate.jsonl", "labels-new.jsonl"):
        for line in (EXAMPLE / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            human[row["id"]] = float(row["label"])
    return calibration, stream.decided_by, stream.verdicts, np.array([human[i] for i in ids])


def one_stream(seed: int, shifted: bool, who: np.ndarray, verdicts: np.ndarray, truth: np.ndarray) -> Stream:
    rng = np.random.default_rng(seed)
    items = rng.integers(0, len(who), LENGTH)
    decided_by, said, label = who[items], verdicts[items].copy(), truth[items]
    if shifted:
        flip = (np.arange(LENGTH) >= SHIFT_AT) & (decided_by == 0) & (rng.random(LENGTH) < FLIPPED)
        said[flip] = 1 - said[flip]
    audit = np.where((decided_by >= 0) & (rng.random(LENGTH) < AUDITED), label, np.nan)
    return Stream(decided_by, said, audit)


def simulate(calibrated: Calibrated, who: np.ndarray, verdicts: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    """Per seed and condition: any alarm, the cheap judge's agreement alarm, the alarms before the shift, the delay
    in the cheap judge's audit labels (and in items) from the shift to its agreement alarm."""
    out: dict[str, Any] = {}
    for shifted in (False, True):
        rows = []
        for seed in range(SEEDS):
            stream = one_stream(seed, shifted, who, verdicts, truth)
            result = monitor(stream, calibrated, Plan())
            cheap_audits = np.flatnonzero((stream.decided_by == 0) & ~np.isnan(stream.audit))  # type: ignore[arg-type]
            before = int(np.sum(cheap_audits < SHIFT_AT))
            alarms = result.alarms
            agreement = next((a for a in alarms if a.family == AGREEMENT and a.judge == "cheap"), None)
            early = [a for a in alarms if (cheap_audits[a.position - 1] if a.family == AGREEMENT else a.position - 1)
                     < SHIFT_AT]  # fmt: skip
            row = {"any": bool(alarms), "early": bool(early), "families": sorted({a.family for a in alarms})}
            if agreement is not None and agreement.position > before:
                row["delay_labels"] = agreement.position - before
                row["delay_items"] = int(cheap_audits[agreement.position - 1]) + 1 - SHIFT_AT
            rows.append(row)
        out["shifted" if shifted else "clean"] = rows
    return out


def share(rows: list[dict[str, Any]], test: Any) -> str:
    return f"{100 * sum(bool(test(r)) for r in rows) / len(rows):.1f}%"


def report(
    calibration: dict[str, Any], who: np.ndarray, verdicts: np.ndarray, truth: np.ndarray, sims: dict[str, Any]
) -> str:
    kept = who >= 0
    agree = {name: float(np.mean(verdicts[who == j] == truth[who == j])) for j, name in enumerate(["cheap", "strong"])}
    clean, shifted = sims["clean"], sims["shifted"]
    delays = [r["delay_labels"] for r in shifted if "delay_labels" in r]
    items = [r["delay_items"] for r in shifted if "delay_items" in r]
    lines = [
        "# Watching a deployed cascade: `cascade monitor` on examples/cascade, 200 seeds",
        "",
        "Produced by `python benchmarks/bench_monitor.py --out results/benchmarks`.",
        "",
        f"Calibration (`cascade calibrate`, 200 labels, target {TARGET:g}, delta 0.1): "
        + "; ".join(
            f"{j['name']} keeps {j['kept']} of 200 at threshold {j['threshold']:.4f}" for j in calibration["judges"]
        )
        + f". Applied to the 600 answers: {int(kept.sum())} kept; on them the kept verdicts agree with the human label "
        f"{agree['cheap']:.4f} (cheap, {int(np.sum(who == 0))} kept) and {agree['strong']:.4f} (strong), so without "
        f"a shift the deployed population meets the target (cheap only just). With the shift, cheap's agreement is "
        f"{0.7 * agree['cheap'] + 0.3 * (1 - agree['cheap']):.3f} from the 2,000th item.",
        "",
        f"Streams of {LENGTH:,} items drawn with replacement from the 600; audit labels on {AUDITED:.0%} of kept "
        "verdicts; the command's defaults: windows of 200 audit labels and of 1,000 decisions, 20 planned windows, "
        "false-alarm budget 0.05 over the 6 tests (3 per judge).",
        "",
        "| stream | seeds with an alarm (exit 1) | cheap's agreement alarm after the shift | alarms before the 2,000th item |",
        "|---|---|---|---|",
        f"| no shift | {share(clean, lambda r: r['any'])} | - | {share(clean, lambda r: r['early'])} |",
        f"| shift from the 2,000th item | {share(shifted, lambda r: r['any'])} | "
        f"{share(shifted, lambda r: 'delay_labels' in r)} | {share(shifted, lambda r: r['early'])} |",
        "",
        f"Delay of cheap's agreement alarm after the shift: median {np.median(delays):.0f} of cheap's audit labels "
        f"(quartiles {np.percentile(delays, 25):.0f}-{np.percentile(delays, 75):.0f}), median {np.median(items):.0f} "
        "items of the stream.",
        "",
        "Alarms by test on the shifted streams: "
        + ", ".join(
            f"{family} {share(shifted, lambda r, f=family: f in r['families'])}"
            for family in (AGREEMENT, "share kept", "verdict rate")
        )
        + " (the flip leaves what cheap keeps unchanged, so the share kept should not ring; the verdict rate moves "
        "by a few points only, so its label-free alarm is slow).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/benchmarks")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        calibration, who, verdicts, truth = deployed(Path(folder))
    calibrated = calibrated_of(calibration)
    text = report(calibration, who, verdicts, truth, simulate(calibrated, who, verdicts, truth))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "monitor.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
