"""`cascade monitor` of a cascade calibrated per slice: decisions.jsonl records each item's slice, every test runs per
judge and per slice, the false-alarm budget is split over the judge-slice pairs as well as the windows (and the
output says so); on seeded streams a shift confined to one slice alarms on that slice, and a clean stream does not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import write_jsonl

from judges.cascade.monitor_stream import Calibrated, Stream, monitor
from judges.cascade.monitoring import AGREEMENT, Plan
from judges.cli.main import main
from judges.labels.schema import LabelType

SLICED = Calibrated(
    ("cheap",),
    (1200,),
    1500,
    0.85,
    LabelType.BINARY,
    slice_field="domain",
    by_slice={"news": (1000, (800,)), "med": (500, (400,))},
)


def stream(seed: int, shift_med: bool, n: int = 20_000) -> Stream:
    """cheap keeps 80% of the items and agrees with people on 93% of them, on both slices (news 2/3 of the items,
    med 1/3); an audit label on 30% of the kept; with `shift_med`, from the 10,000th item on its verdicts on med are
    flipped on 30% of items."""
    rng = np.random.default_rng(seed)
    slices = np.where(rng.random(n) < 2 / 3, "news", "med")
    who = np.where(rng.random(n) < 0.8, 0, -1)
    truth = (rng.random(n) < 0.5).astype(float)
    verdicts = np.where(rng.random(n) < 0.93, truth, 1 - truth)
    if shift_med:
        flipped = (np.arange(n) >= 10_000) & (slices == "med") & (rng.random(n) < 0.3)
        verdicts = np.where(flipped, 1 - verdicts, verdicts)
    audit = np.where((who == 0) & (rng.random(n) < 0.3), truth, np.nan)
    return Stream(who, np.where(who < 0, np.nan, verdicts), audit, slices=tuple(slices.tolist()))


def test_the_budget_is_split_over_judge_slice_pairs_and_windows_and_said():
    result = monitor(stream(0, shift_med=False), SLICED, Plan())
    assert [s.judge for s in result.sequences] == ["cheap [domain=news]"] * 3 + ["cheap [domain=med]"] * 3
    assert result.alpha_family == pytest.approx(0.05 / 6)
    assert result.sequences[0].alpha_window == pytest.approx(0.05 / 6 / 20)
    assert result.split() == "6 tests (2 judge-slice pairs x 3 families)"
    assert result.conclusion().endswith(
        "(false-alarm budget 0.05 split over 6 tests (2 judge-slice pairs x 3 families) and 20 windows each)"
    )
    # each slice's share kept is tested against its own calibration: 800 of 1000, 400 of 500
    assert [round(s.hits.mean(), 1) for s in result.sequences if s.family == "share kept"] == [0.8, 0.8]


def test_a_shift_on_one_slice_alarms_on_that_slice_and_a_clean_stream_rarely_alarms():
    seeds = 40
    shifted = [monitor(stream(seed, shift_med=True), SLICED, Plan()) for seed in range(seeds)]
    on_med = sum(any(a.judge == "cheap [domain=med]" and a.family == AGREEMENT for a in r.alarms) for r in shifted)
    on_news = sum(any(a.judge == "cheap [domain=news]" for a in r.alarms) for r in shifted)
    assert on_med >= 0.9 * seeds and on_news <= 2
    pooled = Calibrated(("cheap",), (1200,), 1500, 0.85, LabelType.BINARY)  # the same stream, monitored pooled
    diluted = sum(
        any(a.family == AGREEMENT for a in monitor(stream(seed, True), pooled, Plan()).alarms) for seed in range(seeds)
    )
    assert diluted <= 0.25 * seeds  # med's shift hides in the pooled agreement
    clean = [monitor(stream(seed, shift_med=False), SLICED, Plan()) for seed in range(100, 100 + seeds)]
    assert sum(bool(r.alarms) for r in clean) <= 2  # at most 5% in expectation


def sliced_deployment(tmp_path: Path) -> tuple[Path, Path]:
    """A cascade calibrated per domain on 400 labelled items (cheap right on 95%), applied to them: its
    calibration.json and decisions.jsonl."""
    rng = np.random.default_rng(3)
    rows, labels = [], []
    for k in range(400):
        domain, label = ("news", "med")[k % 2], int(rng.integers(0, 2))
        verdict = label if rng.random() < 0.95 else 1 - label
        rows.append({"id": f"i{k}", "score": verdict, "confidence": 0.9, "domain": domain})
        labels.append({"id": f"i{k}", "metric": "faithfulness", "label": label, "label_type": "binary"})
        labels[-1]["extra"] = {"domain": domain}
    judge, label_file = write_jsonl(tmp_path / "cheap.jsonl", rows), write_jsonl(tmp_path / "labels.jsonl", labels)
    calibrate = ["cascade", "calibrate", "--labels", str(label_file), "--predictions", f"cheap={judge}"]
    assert main([*calibrate, "--target", "0.8", "--slice", "domain", "--out", str(tmp_path / "cal")]) == 0
    calibration = tmp_path / "cal/calibration.json"
    apply = ["cascade", "apply", str(calibration), "--predictions", f"cheap={judge}"]
    assert main([*apply, "--out", str(tmp_path / "applied")]) == 0
    return calibration, tmp_path / "applied/decisions.jsonl"


def test_decisions_record_the_slice_and_the_monitor_runs_per_slice(tmp_path, capsys):
    calibration, decisions = sliced_deployment(tmp_path)
    lines = [json.loads(line) for line in decisions.read_text().splitlines()]
    assert [d["slice"] for d in lines[:4]] == ["news", "med", "news", "med"]
    command = ["cascade", "monitor", str(calibration), "--decisions", str(decisions)]
    assert main([*command, "--out", str(tmp_path / "watch")]) == 0
    record = json.loads((tmp_path / "watch/monitor.json").read_text())
    assert record["slice_field"] == "domain"
    assert [t["judge"] for t in record["tests"]] == ["cheap [domain=news]"] * 2 + ["cheap [domain=med]"] * 2
    assert record["budget_split"] == "4 tests (2 judge-slice pairs x 2 families), each over 20 windows (Bonferroni)"
    assert "split over the 4 tests (2 judge-slice pairs x 2 families)" in (tmp_path / "watch/monitor.md").read_text()
    # decisions of an older judgelab name no slice: monitored pooled, with a note
    write_jsonl(tmp_path / "old.jsonl", [{k: v for k, v in d.items() if k != "slice"} for d in lines])
    assert main(["cascade", "monitor", str(calibration), "--decisions", str(tmp_path / "old.jsonl")]) == 0
    old = json.loads((tmp_path / "monitor/monitor.json").read_text())
    assert old["slice_field"] is None and [t["judge"] for t in old["tests"]] == ["cheap", "cheap"]
    assert "Calibrated per domain, but no decision names its slice: monitored pooled." in old["notes"]
