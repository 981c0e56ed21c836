"""Writes the cascade example's files (seeded, so the same every time): 600 answers with a human faithfulness label,
and two simulated judges' probability that each is faithful. A cheap judge sure of itself on easy answers and unsure
on hard ones, and a stronger one; the first 200 answers are the labelled ones to calibrate on, the other 400 new.

    python examples/cascade/make_example.py examples/cascade
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(folder: Path) -> None:
    rng = np.random.default_rng(2026)
    n = 600
    faithful = rng.random(n) < 0.6
    hard = rng.random(n)  # 0 easy .. 1 hard: how often a judge errs grows with it
    judges = {"cheap": 0.5, "strong": 0.15}  # the error rate on the hardest answers
    rows = {name: [] for name in judges}
    for name, worst in judges.items():
        wrong = rng.random(n) < worst * hard
        said = faithful ^ wrong
        ease = 1 - hard * (1.0 if name == "cheap" else 0.4)  # the stronger judge is sure of more of them
        # surer on easy answers, and less sure where it errs (its confidence carries a signal, as a calibrated judge's)
        sure = np.clip(0.5 + 0.5 * ease - 0.1 * wrong + rng.normal(0, 0.08, n), 0.5, 0.999)
        rows[name] = [
            {"id": f"a{i:03d}", "score": round(float(s if yes else 1 - s), 4)}
            for i, (yes, s) in enumerate(zip(said, sure))
        ]
    folder.mkdir(parents=True, exist_ok=True)
    for name, predictions in rows.items():
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in predictions))
    labels = [{"id": f"a{i:03d}", "label": int(f)} for i, f in enumerate(faithful)]
    (folder / "labels-calibrate.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels[:200]))
    (folder / "labels-new.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels[200:]))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "examples/cascade"))
