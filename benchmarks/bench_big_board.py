"""A big labelled board: 10 predictions candidates and a majority jury over many binary labels from 9 systems.

Run: python benchmarks/bench_big_board.py --items 1000000 --out results/benchmarks   (develop with --items 100000)
Writes synthetic inputs to a temporary folder: N binary labels (id, label, system), 10 predictions files of
probability scores of varied quality (each wrong on its own share of the items, its scores spread around the
vote), and a board TOML naming the 10 candidates (cut at 0.5) and a majority jury of three of them. Times
`judgelab leaderboard` as a new process (wall time, CPU time, peak resident memory from the kernel), then one
judge's `judgelab agreement` on the same labels; writes big_board.json and prints a Markdown table. `--keep DIR`
keeps the board's leaderboard.json there (to compare the figures before and after a change).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
N_SYSTEMS = 9
ERROR_SHARES = (0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.45)  # one candidate per share
JURY = ("judge-2", "judge-3", "judge-4")


def write_inputs(
    folder: Path, n: int, seed: int = 0, *, shuffled: bool = False, texts: bool = False
) -> tuple[Path, list[Path], Path]:
    """The labels, one predictions file per candidate, and the board config; `shuffled`: each predictions file in its
    own seeded order; `texts`: each label carries its question and answer, as a labelled-item file does."""
    rng = np.random.default_rng(seed)
    system = np.arange(n) % N_SYSTEMS
    truth = (rng.random(n) < np.linspace(0.3, 0.7, N_SYSTEMS)[system]).astype(int)
    labels = folder / "labels.jsonl"
    with labels.open("w", encoding="utf-8") as handle:
        handle.writelines(
            f'{{"id": "i{k}", "metric": "faithfulness", "label": {truth[k]}, "label_type": "binary", '
            f'"scale": [0, 1], "system": "system-{system[k]}"{_texts(k) if texts else ""}}}\n'
            for k in range(n)
        )
    files = []
    for k, share in enumerate(ERROR_SHARES):
        vote = np.where(rng.random(n) < share, 1 - truth, truth)
        score = np.where(vote == 1, 0.55, 0.05) + rng.random(n) * 0.4
        path = folder / f"judge-{k}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            order = rng.permutation(n) if shuffled else range(n)
            handle.writelines(f'{{"id": "i{i}", "score": {score[i]:.4f}}}\n' for i in order)
        files.append(path)
    config = folder / "board.toml"
    config.write_text(
        "".join(
            f'[[candidates]]\nname = "judge-{k}"\nkind = "predictions"\nsource = "{path}"\nthreshold = 0.5\n\n'
            for k, path in enumerate(files)
        )
        + f'[[evaluations]]\nkind = "labels"\nsource = "{labels}"\nname = "big"\n\n'
        + f'[[jury]]\nname = "panel"\nmembers = {json.dumps(list(JURY))}\nrule = "majority"\n',
        encoding="utf-8",
    )
    return labels, files, config


def _texts(k: int) -> str:
    return f', "input": "What does document {k // 3} say?", "actual_output": "Answer {k}: it says this."'


def timed(command: list[str]) -> dict[str, Any]:
    """One judgelab process: wall time, CPU time and peak RSS (kernel figures), and the load it shared the cores with."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{command[3]} exited {os.waitstatus_to_exitcode(status)}: {stderr[-800:]}")
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "load_average": round((load_before + os.getloadavg()[0]) / 2, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # kilobytes on Linux
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--out", default="results/benchmarks")
    parser.add_argument("--keep", help="copy the board's leaderboard.json and the agreement.json into this folder")
    parser.add_argument("--label", default="", help="a name for this run in the results (e.g. before / after)")
    parser.add_argument("--shuffled", action="store_true", help="each predictions file in its own order")
    parser.add_argument("--texts", action="store_true", help="labels carry their question and answer texts")
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        labels, files, config = write_inputs(folder, args.items, shuffled=args.shuffled, texts=args.texts)
        board = timed([python, "-m", "judges.cli.main", "leaderboard", str(config), "--out", str(folder / "board")])
        agreement = timed(
            [python, "-m", "judges.cli.main", "agreement", "--labels", str(labels)]
            + ["--predictions", str(files[0]), "--threshold", "0.5", "--out", str(folder / "agreement")]
        )
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "board" / "leaderboard.json", Path(args.keep) / "leaderboard.json")
            shutil.copy(folder / "agreement" / "agreement.json", Path(args.keep) / "agreement.json")
    row = {
        "label": args.label,
        "items": args.items,
        "shuffled": args.shuffled,
        "texts": args.texts,
        "candidates": len(files),
        "board": board,
        "agreement": agreement,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "big_board.json"
    previous = json.loads(results.read_text(encoding="utf-8")) if results.is_file() else []
    results.write_text(json.dumps([*previous, row], indent=2) + "\n", encoding="utf-8")
    print("| run | items | board s | board CPU s | board peak MB | agreement s | agreement peak MB | load |")
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.label} | {args.items:,} | {board['seconds']} | {board['cpu_seconds']} | {board['peak_rss_mb']:,.0f}"
        f" | {agreement['seconds']} | {agreement['peak_rss_mb']:,.0f} | {board['load_average']} |"
    )


if __name__ == "__main__":
    main()
