"""Corrected estimates: PPI++ equals its authors' implementation, covers the truth, and Rogan-Gladen corrects a rate."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, compact, write_jsonl

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.corrected_estimate import estimates, normal_mean, ppi_mean, rogan_gladen
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.cli.main import main
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.runs.run_config import RunConfig
from judges.types import Sample, VerdictState

SAMPLE = Sample(input="q", references=(), expected_output="", actual_output="a")


def test_our_tests_folder_is_the_one_imported():
    """ppi-python installs a top-level package named `tests`: nothing here may import it by that name."""
    assert "tests" not in sys.modules or Path(sys.modules["tests"].__file__ or "").parent == ROOT / "tests"
    pattern = re.compile(r"^\s*(from|import)\s+tests\b", re.MULTILINE)
    files = [*ROOT.glob("tests/**/*.py"), *ROOT.glob("judges/**/*.py"), *ROOT.glob("benchmarks/**/*.py")]
    assert [p for p in files if pattern.search(p.read_text(encoding="utf-8"))] == []


def fixed_data(seed=7, n=120, big_n=900):
    rng = np.random.default_rng(seed)
    truth = rng.random(n + big_n) < 0.4
    judge = np.where(rng.random(n + big_n) < 0.85, truth, ~truth) | (rng.random(n + big_n) < 0.3)
    return truth[:n].astype(float), judge[:n].astype(float), judge[n:].astype(float)


@pytest.mark.parametrize("seed", [7, 8])
def test_ppi_equals_the_reference_implementation_on_fixed_data(seed):
    ppi_py = pytest.importorskip("ppi_py")
    y, f_labelled, f_unlabelled = fixed_data(seed)
    found, lam = ppi_mean(y, f_labelled, f_unlabelled, confidence=0.95)
    low, high = ppi_py.ppi_mean_ci(y, f_labelled, f_unlabelled, alpha=0.05)
    assert found.value == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, f_labelled, f_unlabelled)[0]))
    assert found.ci == (pytest.approx(float(low[0])), pytest.approx(float(high[0])))
    assert 0 < lam < 1
    # continuous values too, and lam = 0 is the classical interval
    rng = np.random.default_rng(seed)
    y2 = rng.normal(size=80)
    f2, fu2 = y2 + rng.normal(size=80), rng.normal(size=500)
    found2, _ = ppi_mean(y2, f2, fu2, confidence=0.9)
    low2, high2 = ppi_py.ppi_mean_ci(y2, f2, fu2, alpha=0.1)
    assert found2.ci == (pytest.approx(float(low2[0])), pytest.approx(float(high2[0])))
    classical = ppi_py.ppi_mean_ci(y2, f2, fu2, alpha=0.05, lam=0)
    assert normal_mean(y2, 0.95).ci == (pytest.approx(float(classical[0][0])), pytest.approx(float(classical[1][0])))


def test_ppi_covers_the_full_label_mean_where_the_judge_alone_does_not():
    """400 random labelled subsets of 100 out of 3,000 items: a biased judge (says "faithful" too often)."""
    rng = np.random.default_rng(2024)
    big = 3000
    truth = (rng.random(big) < 0.415).astype(float)
    judge = np.where(truth == 1, rng.random(big) < 0.9, rng.random(big) < 0.5).astype(float)
    target = truth.mean()
    ppi_hits = judge_hits = 0
    widths = []
    for _ in range(400):
        labelled = np.zeros(big, dtype=bool)
        labelled[rng.choice(big, 100, replace=False)] = True
        found = estimates(
            truth[labelled], judge[labelled], judge[~labelled], binary=True, resamples=200, seed=0, confidence=0.95
        )
        ppi_hits += found.ppi.ci[0] <= target <= found.ppi.ci[1]
        judge_hits += found.judge_only.ci[0] <= target <= found.judge_only.ci[1]
        widths.append((found.ppi.ci[1] - found.ppi.ci[0]) / (found.labelled_only.ci[1] - found.labelled_only.ci[0]))
    print(f"coverage over 400 subsets: PPI++ {ppi_hits / 400:.3f}, judge only {judge_hits / 400:.3f}")
    assert ppi_hits / 400 >= 0.93
    assert judge_hits / 400 < 0.05
    assert np.median(widths) < 1.0  # a judge better than chance narrows the interval


def test_rogan_gladen_by_hand():
    # sensitivity 8/10, specificity 6/10; the judge calls 62% of all items positive: (0.62 + 0.6 - 1) / 0.4 = 0.55
    truth = np.array([1.0] * 10 + [0.0] * 10)
    said = np.array([1.0] * 8 + [0.0] * 2 + [0.0] * 6 + [1.0] * 4)
    said_all = np.array([1.0] * 62 + [0.0] * 38)
    found = rogan_gladen(truth, said, said_all, resamples=500, seed=0, confidence=0.95)
    assert found.value == pytest.approx(0.55)
    assert found.ci is not None and found.ci[0] < 0.55 < found.ci[1]
    assert found.ci[1] - found.ci[0] > 0.3  # ten labels of each class: sensitivity and specificity are uncertain
    chance = rogan_gladen(truth, np.ones(20), said_all, resamples=200, seed=0, confidence=0.95)
    assert chance.value is None and "no better than chance" in (chance.note or "")


def labelled(n_labelled, truth):
    items = tuple(
        LabelledItem(str(i), "faithfulness", float(truth[i]), LabelType.BINARY, (0.0, 1.0), "h", SAMPLE)
        for i in range(n_labelled)
    )
    return LabelledSet("subset", items)


def test_measure_adds_estimates_only_when_the_judge_graded_unlabelled_items():
    rng = np.random.default_rng(5)
    truth = (rng.random(600) < 0.4).astype(float)
    said = np.where(truth == 1, rng.random(600) < 0.9, rng.random(600) < 0.4).astype(float)
    preds = Predictions({(str(i), None): Prediction(str(i), VerdictState.GRADE, said[i]) for i in range(600)}, "p")
    result = measure(labelled(150, truth), preds, AgreementSettings(resamples=200))
    assert result.estimate is not None
    assert (result.estimate.n_labelled, result.estimate.n_unlabelled) == (150, 450)
    assert result.estimate.judge_only.value == pytest.approx(said.mean())
    assert result.estimate.labelled_only.value == pytest.approx(truth[:150].mean())
    assert result.estimate.rogan_gladen is not None
    only_labelled = Predictions({k: v for k, v in preds.by_key.items() if int(k[0]) < 150}, "p")
    assert measure(labelled(150, truth), only_labelled, AgreementSettings(resamples=200)).estimate is None


def test_the_command_reports_the_corrected_rate_from_a_file(tmp_path, capsys):
    rng = np.random.default_rng(9)
    truth = (rng.random(800) < 0.415).astype(int)
    said = np.where(truth == 1, rng.random(800) < 0.95, rng.random(800) < 0.75).astype(int)
    write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"id": str(i), "metric": "faithfulness", "label": int(truth[i]), "label_type": "binary"}
            | {"actual_output": "a"}
            for i in range(200)
        ],
    )
    write_jsonl(tmp_path / "judge.jsonl", [{"id": str(i), "score": int(said[i])} for i in range(800)])
    args = ["agreement", "--labels", str(tmp_path / "labels.jsonl"), "--predictions", str(tmp_path / "judge.jsonl")]
    assert main([*args, "--resamples", "200", "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "agreement.json").read_text())["metrics"]["faithfulness"]["estimate"]
    for key in ("judge_only", "labelled_only", "ppi", "rogan_gladen"):
        assert report[key]["value"] is not None and len(report[key]["ci"]) == 2
    assert report["judge_only"]["value"] == pytest.approx(said.mean())
    assert report["ppi"]["ci"][0] <= truth.mean() <= report["ppi"]["ci"][1]
    assert not report["judge_only"]["ci"][0] <= truth.mean() <= report["judge_only"]["ci"][1]
    markdown = compact((tmp_path / "out" / "agreement.md").read_text())
    assert f"The judge says {said.mean():.4f}; corrected with 200 labels:" in markdown
    assert "| labelled only |" in markdown and "report the corrected rate (PPI++)" in markdown


def test_a_run_folder_with_labels_over_a_subset_of_its_items(tmp_path):
    """evaluate -> label -> agreement: the run graded 300 answers, 60 of them carry a label."""
    from judges.records import ItemRecord, Summary
    from judges.runs.run import Run

    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, size=300)
    grades = np.clip(truth + rng.integers(0, 2, size=300), 1, 5)  # a lenient judge
    records = [
        {"id": f"i{k}", "metrics": {"completeness": {"verdict": {"state": "grade", "grade": int(g)}}}}
        for k, g in enumerate(grades)
    ]
    folder = tmp_path / "run"
    folder.mkdir()
    write_jsonl(folder / "results.jsonl", records)
    Run("grade", RunConfig.from_json({"judge": "j"}), [ItemRecord.from_json(r) for r in records], Summary()).save(
        folder
    )
    rows = [
        {"id": f"i{k}", "metric": "completeness", "label": int(truth[k]), "label_type": "ordinal", "scale": [1, 5]}
        | {"actual_output": "a"}
        for k in range(60)
    ]
    write_jsonl(tmp_path / "labels.jsonl", rows)
    out = tmp_path / "out"
    args = ["agreement", "--labels", str(tmp_path / "labels.jsonl"), "--predictions", str(folder)]
    assert main([*args, "--resamples", "100", "--out", str(out)]) == 0
    found = json.loads((out / "agreement.json").read_text())["metrics"]["completeness"]["estimate"]
    assert (found["n_labelled"], found["n_unlabelled"]) == (60, 240)
    assert found["judge_only"]["value"] == pytest.approx(grades.mean())
    assert found["labelled_only"]["value"] == pytest.approx(truth[:60].mean())
    assert "rogan_gladen" not in found
    low, high = found["ppi"]["ci"]
    assert low <= truth.mean() <= high
