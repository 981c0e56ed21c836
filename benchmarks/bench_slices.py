"""Every slice on real labels: `validate --slice` (a bad slice fails the certificate while the pooled figure passes)
and a cascade per slice (its target kept on each slice over seeded splits), against the pooled ones.

The set: RAGChecker's meta-evaluation (../shared/datasets/ragchecker, Apache-2.0): 280 response pairs from 10 source
datasets (`dataset`: kiwi, clapnq, novelqa, seven robustqa domains), each labelled by two annotators with
`overall_label` in -2..2 (the preference for model2's answer). A row is one annotator's label: 1 when the annotator
prefers model2, 0 when model1 (ties left out). The judge is RAGChecker itself, its released `overall` scores
(`baseline_ragchecker.json`): it says 1 when model2's score is higher, 0 when lower (equal scores left out); its
confidence is 0.5 + |score difference| / 2 (a larger gap, a surer call). 372 rows remain.

1. `judgelab validate --labels L --predictions P --min-recall B` at B = 0.6, 0.65 and 0.7: pooled, `--slice source`
   (robustqa's seven domains together, 267 rows, against kiwi, clapnq and novelqa together, 105 rows) and `--slice
   domain` (the ten source datasets, 27 to 43 rows each); the files written from the set (each row an item,
   `<pair>-<annotator>`, its `domain` and `source` under `extra`).
2. The cascade of this one judge, calibrated on a seeded half of the rows and applied to the other half, 200 splits:
   pooled (`cascade calibrate`) and per slice (`--slice source`, delta split over the two slices), target 0.8, delta
   0.1, at least 20 kept; on each split, whether the kept verdicts' agreement with the held-out labels misses the
   target on some slice, and the share of each slice's held-out items kept.

Run: python benchmarks/bench_slices.py --out results/benchmarks
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges.agreement.predictions import Prediction, Predictions  # noqa: E402
from judges.cascade.chain import calibrate_cascade  # noqa: E402
from judges.cascade.slice_chain import calibrate_by_slice, decide_by_slice  # noqa: E402
from judges.cascade.sources import Judge  # noqa: E402
from judges.cascade.verdicts import VerdictRule  # noqa: E402
from judges.cli.main import main  # noqa: E402
from judges.labels.schema import LabelType  # noqa: E402
from judges.types import VerdictState  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "ragchecker"
BARS, SPLITS, SEED, TARGET, DELTA, MIN_KEPT = (0.6, 0.65, 0.7), 200, 2026, 0.8, 0.1, 20
METRIC = "overall"


def rows(folder: Path) -> list[dict[str, Any]]:
    """Each labelled row the judge gave a call on: its id, label, the judge's call and confidence, its domain."""
    human = json.loads((folder / "human_labeled_data.json").read_text(encoding="utf-8"))
    metric = {str(r["instance_id"]): r for r in json.loads((folder / "baseline_ragchecker.json").read_text("utf-8"))}
    out, seen = [], {}
    for row in human:
        pair = metric[str(row["instance_id"])]
        said = pair["model2"]["ragchecker"]["overall_label"] - pair["model1"]["ragchecker"]["overall_label"]
        seen[row["instance_id"]] = seen.get(row["instance_id"], 0) + 1
        if row["overall_label"] == 0 or said == 0:
            continue
        out.append(
            {
                "id": f"{row['instance_id']}-{seen[row['instance_id']]}",
                "label": int(row["overall_label"] > 0),
                "call": int(said > 0),
                "confidence": round(0.5 + min(1.0, abs(said)) / 2, 6),
                "domain": row["dataset"],
                "source": "robustqa" if row["dataset"].startswith("robustqa") else "kiwi, clapnq, novelqa",
            }
        )
    return out


def certify(data: list[dict[str, Any]], folder: Path) -> dict[tuple[float, str], dict[str, Any]]:
    """`validate --min-recall BAR` pooled, `--slice source` and `--slice domain`, at each bar, on the rows written
    as files."""
    labels, predictions = folder / "labels.jsonl", folder / "predictions.jsonl"
    extra = [{"domain": r["domain"], "source": r["source"]} for r in data]
    rows_out = [{"id": r["id"], "metric": METRIC, "label": r["label"], "label_type": "binary"} for r in data]
    labels.write_text("".join(json.dumps(row | {"extra": e}) + "\n" for row, e in zip(rows_out, extra, strict=True)))
    predictions.write_text("".join(json.dumps({"id": r["id"], "score": r["call"]}) + "\n" for r in data))
    command = ["validate", "--labels", str(labels), "--predictions", str(predictions)]
    found: dict[tuple[float, str], dict[str, Any]] = {}
    for bar in BARS:
        for name in ("pooled", "source", "domain"):
            extra = [] if name == "pooled" else ["--slice", name]
            out = folder / f"{name}-{bar}"
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                code = main([*command, "--min-recall", str(bar), *extra, "--out", str(out)])
            record = json.loads((out / "certification.json").read_text())
            last = printed.getvalue().strip().splitlines()[-1].split("; wrote")[0]
            found[(bar, name)] = {"exit": code, "record": record, "last_line": last}
    return found


def judge_of(data: list[dict[str, Any]], keep: set[str]) -> Judge:
    by_key = {
        (r["id"], None): Prediction(r["id"], VerdictState.GRADE, float(r["call"]), confidence=r["confidence"])
        for r in data
        if r["id"] in keep
    }
    return Judge("ragchecker", "memory", Predictions(by_key), METRIC)


def kept_agreement(decisions: Any, label: dict[str, int], slice_of: dict[str, str], name: str) -> tuple[float, int]:
    kept = [d for d in decisions if d.decided_by is not None and slice_of[d.id] == name]
    return (sum(d.verdict == label[d.id] for d in kept) / len(kept) if kept else 1.0), len(kept)


def cascades(data: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled and per-slice cascades over seeded 50/50 splits: the share of splits where a slice misses the target."""
    rule = VerdictRule(LabelType.BINARY)
    label = {r["id"]: r["label"] for r in data}
    slice_of = {r["id"]: r["source"] for r in data}
    names = sorted(set(slice_of.values()))
    rng = np.random.default_rng(SEED)
    misses = {"pooled": np.zeros((SPLITS, len(names)), bool), "sliced": np.zeros((SPLITS, len(names)), bool)}
    kept = {"pooled": np.zeros((SPLITS, len(names))), "sliced": np.zeros((SPLITS, len(names)))}
    every = list(label)
    for split in range(SPLITS):
        order = rng.permutation(len(every))
        half = {every[i] for i in order[: len(every) // 2]}
        rest = set(every) - half
        judge, held_out = judge_of(data, half), judge_of(data, rest)
        truth = {i: float(label[i]) for i in every if i in half}
        [pooled] = calibrate_cascade([judge], truth, rule, target=TARGET, delta=DELTA, min_kept=MIN_KEPT)
        truths = {name: {i: v for i, v in truth.items() if slice_of[i] == name} for name in names}
        steps = calibrate_by_slice([judge], truths, rule, target=TARGET, delta=DELTA, min_kept=MIN_KEPT)
        plans = {
            "pooled": {name: [pooled.choice.threshold] for name in names},
            "sliced": {name: [steps[name][0].choice.threshold] for name in names},
        }
        for how, thresholds in plans.items():
            decisions, _ = decide_by_slice([held_out], thresholds, slice_of, rule)
            for n, name in enumerate(names):
                rate, count = kept_agreement(decisions, {i: label[i] for i in rest}, slice_of, name)
                misses[how][split, n] = count > 0 and rate < TARGET
                kept[how][split, n] = count / sum(1 for i in rest if slice_of[i] == name)
    return {
        "names": names,
        "counts": {name: sum(1 for v in slice_of.values() if v == name) for name in names},
        "some_slice_misses": {how: float(m.any(axis=1).mean()) for how, m in misses.items()},
        "misses": {how: {name: float(m[:, n].mean()) for n, name in enumerate(names)} for how, m in misses.items()},
        "kept": {how: {name: float(k[:, n].mean()) for n, name in enumerate(names)} for how, k in kept.items()},
    }


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def slice_cells(record: dict[str, Any]) -> str:
    """The slices not certified (and undecided), each with its reason, or "-"."""
    block = record.get("slices")
    if block is None:
        return "-"
    shown = [f"{s['slice']} ({s['reason']})" for s in block["slices"] if s["state"] != "certified"]
    return "; ".join(shown) or "-"


def markdown(data: list[dict[str, Any]], found: dict[tuple[float, str], dict[str, Any]], runs: dict[str, Any]) -> str:
    sens = sum(r["call"] == 1 and r["label"] == 1 for r in data), sum(r["label"] == 1 for r in data)
    spec = sum(r["call"] == 0 and r["label"] == 0 for r in data), sum(r["label"] == 0 for r in data)
    lines = [
        "# Every slice on real labels: `validate --slice` and a cascade per slice",
        "",
        "Produced by `python benchmarks/bench_slices.py --out results/benchmarks`.",
        "",
        f"Set: RAGChecker meta-evaluation ({len(data)} labelled rows: 280 pairs x 2 annotators from 10 source "
        "datasets, ties left out); judge: RAGChecker's released `overall` scores, model2 minus model1 cut at 0, "
        "confidence 0.5 + |difference| / 2. Pooled: sensitivity "
        f"{sens[0]}/{sens[1]} = {sens[0] / sens[1]:.3f}, specificity {spec[0]}/{spec[1]} = {spec[0] / spec[1]:.3f}.",
        "",
        "## A bad slice fails the certificate while the pooled figure passes",
        "",
        "`judgelab validate --labels labels.jsonl --predictions predictions.jsonl --min-recall B [--slice FIELD]` "
        "(one-sided 95% exact bounds; per slice an intersection-union test):",
        "",
        "| bar | pooled | `--slice source` (2 slices) | `--slice domain` (10 slices) |",
        "|---|---|---|---|",
    ]
    for bar in BARS:
        cells = [found[(bar, name)]["last_line"] for name in ("pooled", "source", "domain")]
        lines.append(f"| {bar:g} | " + " | ".join(cells) + " |")
    lines += ["", "Slices not certified at the bar 0.65, with the bars they miss:", ""]
    for bar in BARS[1:2]:
        for name in ("source", "domain"):
            lines.append(f"- {bar:g}, `--slice {name}`: {slice_cells(found[(bar, name)]['record'])}")
    names = runs["names"]
    lines += [
        "",
        f"## A cascade per slice keeps its target on each slice ({SPLITS} seeded 50/50 splits)",
        "",
        f"One judge, calibrated on a seeded half of the rows (target {TARGET:g}, delta {DELTA:g}, at least "
        f"{MIN_KEPT} kept) and applied to the other half; slices by source: "
        + ", ".join(f"{n} ({runs['counts'][n]} rows)" for n in names)
        + ".",
        "",
        "| cascade | splits where some slice misses the target (guarantee: <= delta) | "
        + " | ".join(f"misses on {n}" for n in names)
        + " | "
        + " | ".join(f"share of {n} kept" for n in names)
        + " |",
        "|---|---|" + "---|" * (2 * len(names)),
    ]
    for how, label in (("pooled", "pooled (`cascade calibrate`)"), ("sliced", "per slice (`--slice source`)")):
        lines.append(
            f"| {label} | {pct(runs['some_slice_misses'][how])} | "
            + " | ".join(pct(runs["misses"][how][n]) for n in names)
            + " | "
            + " | ".join(pct(runs["kept"][how][n]) for n in names)
            + " |"
        )
    lines += [
        "",
        "The pooled cascade's guarantee is on the average item: robustqa, where the judge is weaker, gets kept verdicts "
        "under the target more often than delta allows. Per slice, each slice's threshold is chosen on its own labels "
        "at delta / 2, and the price is what is kept: with half of 105 and of 267 rows to calibrate on, each slice "
        "keeps far fewer items. Assumptions: the labelled rows are exchangeable within a slice (the two annotators of "
        "a pair are two rows here, so a split is not of independent items), and the held-out half's own sampling "
        "noise is part of each split's outcome.",
    ]
    return "\n".join(lines) + "\n"


def run(out: Path) -> Path:
    data = rows(DATA)
    with tempfile.TemporaryDirectory() as folder:
        found = certify(data, Path(folder))
    text = markdown(data, found, cascades(data))
    out.mkdir(parents=True, exist_ok=True)
    (out / "slices.md").write_text(text, encoding="utf-8")
    return out / "slices.md"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/benchmarks", help="folder for slices.md")
    print(f"wrote {run(Path(parser.parse_args().out))}")
