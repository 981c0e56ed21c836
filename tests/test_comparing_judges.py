"""Skewed labels and two judges: Gwet's AC1 beside kappa, paired differences, Williams' test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import compact, write_jsonl

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.chance import cohen_kappa, gwet_ac1
from judges.agreement.measure import measure
from judges.agreement.paired import compare, williams_test
from judges.agreement.predictions import Prediction, Predictions
from judges.agreement.statistic_index import INDEX
from judges.cli.main import main
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.types import Sample, VerdictState

SAMPLE = Sample(input="q", references=(), expected_output="", actual_output="a")


def test_ac1_and_kappa_by_hand_on_skewed_labels():
    # 20 items: both say 1 on 17, both 0 on 1, one disagreement each way. Pa = 18/20 = 0.9.
    # Both raters' share of 1s is 0.9: kappa's Pe = 0.9^2 + 0.1^2 = 0.82, kappa = 0.08 / 0.18 = 0.444;
    # AC1's Pe = 2 * 0.9 * 0.1 = 0.18, AC1 = 0.72 / 0.82 = 0.878 (the kappa paradox, and AC1 beside it).
    human = np.array([1.0] * 17 + [1, 0, 0])
    judge = np.array([1.0] * 17 + [0, 1, 0])
    assert cohen_kappa(human, judge) == pytest.approx(0.08 / 0.18)
    assert gwet_ac1(human, judge) == pytest.approx(0.72 / 0.82)
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    h, j = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    assert cohen_kappa(h, j) == pytest.approx(cohen_kappa_score(h, j))
    # one class only: perfect agreement is AC1 1, while kappa is undefined (Pe = 1)
    assert gwet_ac1(np.ones(5), np.ones(5)) == 1.0 and np.isnan(cohen_kappa(np.ones(5), np.ones(5)))


def test_weighted_forms_equal_the_statistics_of_the_expanded_resamples():
    rng = np.random.default_rng(6)
    human, judge = rng.integers(0, 2, 60).astype(float), rng.integers(0, 2, 60).astype(float)
    counts = rng.multinomial(60, np.full(60, 1 / 60), size=5).astype(float)
    for kind, one in (("gwet_ac1", gwet_ac1), ("cohen_kappa", cohen_kappa)):
        found = INDEX[kind].weighted(human, judge)(counts)
        rows = [np.repeat(np.arange(60), c.astype(int)) for c in counts]
        assert found == pytest.approx([one(human[r], judge[r]) for r in rows])


def test_binary_agreement_reports_kappa_and_ac1():
    items = tuple(
        LabelledItem(str(i), "m", float(v), LabelType.BINARY, (0.0, 1.0), "h", SAMPLE)
        for i, v in enumerate([1] * 17 + [1, 0, 0])
    )
    said = [1] * 17 + [0, 1, 0]
    preds = Predictions({(str(i), None): Prediction(str(i), VerdictState.GRADE, float(v)) for i, v in enumerate(said)})
    result = measure(LabelledSet("skewed", items), preds, AgreementSettings(resamples=200))
    assert result.figure("gwet_ac1").value == pytest.approx(0.72 / 0.82)
    assert result.figure("cohen_kappa").value == pytest.approx(0.08 / 0.18)


def test_williams_test_by_hand():
    # r12 = 0.5, r13 = 0.3, r23 = 0.6, n = 50: |R| = 1 - 0.25 - 0.09 - 0.36 + 2 * 0.5 * 0.3 * 0.6 = 0.48;
    # t = 0.2 * sqrt(49 * 1.6) / sqrt(2 * 49 / 47 * 0.48 + 0.4^2 * 0.4^3) = 1.770875 / 1.005530 = 1.761136
    from scipy import stats

    t, p = williams_test(0.5, 0.3, 0.6, 50)
    assert t == pytest.approx(1.761136, abs=1e-5)
    assert p == pytest.approx(2 * stats.t.sf(1.761136, 47), abs=1e-6)
    assert williams_test(0.3, 0.5, 0.6, 50)[0] == pytest.approx(-t)


def two_judges(n=150, seed=1):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=n).astype(float)
    items = tuple(LabelledItem(str(i), "m", truth[i], LabelType.ORDINAL, (1.0, 5.0), "h", SAMPLE) for i in range(n))
    close = truth + rng.normal(0, 0.6, n)
    loose = truth + rng.normal(0, 1.5, n)

    def as_predictions(values):
        return Predictions({(str(i), None): Prediction(str(i), VerdictState.GRADE, v) for i, v in enumerate(values)})

    return LabelledSet("pair", items), as_predictions(close), as_predictions(loose), truth, close, loose


def test_the_paired_difference_separates_a_close_judge_from_a_loose_one():
    from scipy import stats

    labels, close, loose, truth, close_values, loose_values = two_judges()
    a, b = (
        measure(labels, close, AgreementSettings(resamples=300)),
        measure(labels, loose, AgreementSettings(resamples=300)),
    )
    found = {d.statistic: d for d in compare(a, b, resamples=300, seed=0)}
    pearson = found["pearson"]
    assert pearson.a == pytest.approx(stats.pearsonr(truth, close_values)[0])
    assert pearson.difference == pytest.approx(pearson.a - pearson.b)
    assert pearson.ci[0] > 0
    r23 = stats.pearsonr(close_values, loose_values)[0]
    assert (pearson.williams_t, pearson.williams_p) == pytest.approx(williams_test(pearson.a, pearson.b, r23, 150))
    assert pearson.williams_p < 0.01
    assert found["kendall_tau_b"].williams_t is None  # Williams only for Pearson and Spearman
    same = {d.statistic: d for d in compare(a, a, resamples=200, seed=0)}
    assert same["pearson"].difference == 0 and same["pearson"].ci == (0.0, 0.0)


def test_the_command_compares_two_judges_on_the_items_both_graded(tmp_path, capsys):
    labels, close, loose, *_ = two_judges(n=80)
    write_jsonl(tmp_path / "labels.jsonl", [i.to_record() for i in labels.items])
    write_jsonl(tmp_path / "a.jsonl", [{"id": k[0], "score": p.score} for k, p in close.by_key.items()])
    write_jsonl(  # judge B graded all but five items
        tmp_path / "b.jsonl", [{"id": k[0], "score": p.score} for k, p in loose.by_key.items() if int(k[0]) >= 5]
    )
    args = ["agreement", "--labels", str(tmp_path / "labels.jsonl"), "--resamples", "200"]
    args += ["--predictions", str(tmp_path / "a.jsonl"), "--predictions", str(tmp_path / "b.jsonl")]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "agreement.json").read_text())
    assert report["metrics"]["m"]["n_items"] == 80
    assert report["second_judge"]["path"].endswith("b.jsonl")
    pearson = next(d for d in report["comparison"]["m"] if d["statistic"] == "pearson")
    assert pearson["n_items"] == 75 and pearson["williams_p"] is not None and len(pearson["ci"]) == 2
    markdown = compact((tmp_path / "out" / "agreement.md").read_text())
    assert "on the 75 items both graded" in markdown and "| pearson |" in markdown
    assert main([*args, "--predictions", str(tmp_path / "a.jsonl")]) == 2
    assert "one judge, or two to compare" in capsys.readouterr().err
