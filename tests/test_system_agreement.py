"""System-aware agreement: partial correlations controlling for the system, system-level figures, per-system table."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc

import numpy as np
import pytest
from conftest import compact, write_jsonl

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.agreement.system_statistics import system_level, weighted_correlation, weighted_ranks
from judges.agreement.systems import system_agreement
from judges.cli.main import main
from judges.labels.mapping import ColumnMapping, map_rows
from judges.labels.schema import LabelledItem, LabelledSet, LabelType, parse_item
from judges.types import Sample, VerdictState

SAMPLE = Sample(input="q", references=(), expected_output="", actual_output="a")
QUALITY = {"weak": 0.2, "fair": 0.4, "good": 0.6, "strong": 0.8}


def system_set(judge_of, label_type=LabelType.CONTINUOUS, per_system=50, seed=3):
    """Items of four systems of different quality: the human label is the system's quality plus item noise."""
    rng = np.random.default_rng(seed)
    items, scores = [], {}
    for system, quality in QUALITY.items():
        for k in range(per_system):
            item_noise = rng.normal(0, 0.1)
            label = float(np.clip(quality + item_noise, 0, 1))
            if label_type is LabelType.BINARY:
                label = float(label >= 0.5)
            item_id = f"{system}-{k}"
            items.append(LabelledItem(item_id, "m", label, label_type, (0.0, 1.0), "h", SAMPLE, system=system))
            scores[item_id] = judge_of(quality, label, rng)
    preds = Predictions({(i, None): Prediction(i, VerdictState.GRADE, v) for i, v in scores.items()}, "test")
    return LabelledSet("systems", tuple(items)), preds


def frank_residuals(systems, values):
    """Residuals of OLS on the one-hot system with an intercept (scikit-learn), as FRANK computes them."""
    from sklearn.linear_model import LinearRegression
    from sklearn.preprocessing import OneHotEncoder

    onehot = OneHotEncoder().fit_transform(np.asarray(systems).reshape(-1, 1)).toarray()
    return values - LinearRegression().fit(onehot, values).predict(onehot)


def test_a_judge_that_only_recognises_the_system_correlates_plainly_but_not_within_systems():
    labels, preds = system_set(lambda quality, label, rng: quality + rng.normal(0, 0.02))
    result = measure(labels, preds, AgreementSettings(resamples=150))
    assert result.figure("pearson").value > 0.8
    assert abs(result.figure("partial_pearson").value) < 0.15
    assert abs(result.figure("partial_spearman").value) < 0.15
    low, high = result.figure("partial_pearson").ci
    assert low < 0 < high
    assert result.figure("system_level_pearson").value > 0.99
    assert result.figure("system_level_pairwise_accuracy").value == 1.0


def test_a_judge_that_tracks_the_item_keeps_a_high_partial_correlation():
    labels, preds = system_set(lambda quality, label, rng: label + rng.normal(0, 0.03))
    result = measure(labels, preds, AgreementSettings(resamples=150))
    assert result.figure("partial_pearson").value > 0.9
    assert result.figure("partial_spearman").value > 0.85
    assert result.figure("partial_pearson").ci[0] > 0.8


def test_partial_and_system_level_values_equal_the_literature_recipes():
    rng = np.random.default_rng(0)
    systems = np.repeat(["a", "b", "c", "d", "e"], [7, 9, 11, 5, 8])
    human = rng.normal(size=systems.size) + (systems == "c")
    judge = 0.5 * human + rng.normal(size=systems.size) + 2 * (systems == "a")
    found = system_agreement(LabelType.CONTINUOUS, list(systems), human, judge, resamples=200, seed=0, confidence=0.95)
    assert found is not None
    figures = {f.statistic: f.value for f in found.figures}
    from scipy import stats

    rh, rj = frank_residuals(systems, human), frank_residuals(systems, judge)
    assert figures["partial_pearson"] == pytest.approx(stats.pearsonr(rh, rj).statistic, abs=1e-12)
    assert figures["partial_spearman"] == pytest.approx(stats.spearmanr(rh, rj).statistic, abs=1e-12)
    names = sorted(set(systems))
    mh = np.array([human[systems == s].mean() for s in names])
    mj = np.array([judge[systems == s].mean() for s in names])
    assert figures["system_level_pearson"] == pytest.approx(stats.pearsonr(mh, mj).statistic, abs=1e-12)
    assert figures["system_level_spearman"] == pytest.approx(stats.spearmanr(mh, mj).statistic, abs=1e-12)
    assert figures["system_level_kendall"] == pytest.approx(stats.kendalltau(mh, mj).statistic, abs=1e-12)
    agree = [np.sign(mh[b] - mh[a]) == np.sign(mj[b] - mj[a]) for a in range(5) for b in range(a + 1, 5)]
    assert figures["system_level_pairwise_accuracy"] == pytest.approx(np.mean(agree))
    assert [(r.system, r.n_items) for r in found.rows] == [("a", 7), ("b", 9), ("c", 11), ("d", 5), ("e", 8)]
    assert found.rows[2].human_mean == pytest.approx(human[systems == "c"].mean())
    assert found.rows[2].value == pytest.approx(stats.pearsonr(human[systems == "c"], judge[systems == "c"])[0])


def test_pairwise_accuracy_by_hand():
    human = np.array([[1.0, 2.0, 3.0, 4.0]])
    judge = np.array([[1.0, 3.0, 2.0, 4.0]])  # one of six pairs (2, 3) ordered the other way
    assert system_level(human, judge)["system_level_pairwise_accuracy"][0] == pytest.approx(5 / 6)
    assert system_level(human, judge)["system_level_kendall"][0] == pytest.approx(4 / 6)


def test_pairwise_accuracy_and_kendall_equal_every_system_pair_counted_on_random_data():
    """Without the systems x systems pairs: the same figures as counting each pair, ties on one or both sides and
    rows constant on one side included (the share exactly, tau-b to rounding)."""
    from scipy import stats

    rng = np.random.default_rng(11)
    for n_systems, levels in ((2, 3), (3, 3), (7, 4), (40, 5), (300, None)):  # None: continuous, no ties
        shape = (25, n_systems)
        human, judge = (rng.normal(size=shape) if levels is None else rng.integers(0, levels, shape) for _ in "hj")
        human, judge = human.astype(float), judge.astype(float)
        human[0] = 1.0  # one side constant
        judge[1] = human[1]  # ordered alike, ties and all
        judge[2] = -human[2]
        found = system_level(human, judge)
        first, second = np.triu_indices(n_systems, k=1)
        for row in range(human.shape[0]):
            agree = np.sign(human[row, second] - human[row, first]) == np.sign(judge[row, second] - judge[row, first])
            assert found["system_level_pairwise_accuracy"][row] == agree.sum() / agree.size
            tau = stats.kendalltau(human[row], judge[row]).statistic
            assert found["system_level_kendall"][row] == pytest.approx(tau, abs=1e-12, nan_ok=True)
        assert found["system_level_pairwise_accuracy"][1] == 1.0 and np.isnan(found["system_level_kendall"][0])


def test_memory_grows_with_the_systems_never_with_their_pairs():
    """The same 4,000 items split among 100 and then 1,000 systems: the peak grows less than the systems do (every
    system pair of every resample held at once is 100 times as much at 10 times the systems)."""

    def peak(n_systems: int) -> int:
        rng = np.random.default_rng(0)
        human = rng.random(4000)
        judge = human + rng.normal(0, 0.1, human.size)
        systems = [f"s{k % n_systems}" for k in range(human.size)]
        tracemalloc.start()
        found = system_agreement(LabelType.CONTINUOUS, systems, human, judge, resamples=20, seed=0, confidence=0.95)
        used = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert found is not None and len(found.rows) == n_systems
        return used

    peak(10)  # scipy's modules loaded before anything is measured
    assert peak(1000) < 10 * peak(100)


def test_systems_of_one_item_say_their_means_never_vary_in_the_resamples():
    rng = np.random.default_rng(2)
    human = rng.random(40)
    judge = human + rng.normal(0, 0.2, 40)
    systems = [f"s{k}" for k in range(30)] + ["big"] * 10  # 30 systems of one item, one of ten
    found = system_agreement(LabelType.CONTINUOUS, systems, human, judge, resamples=50, seed=0, confidence=0.95)
    assert found is not None
    figure = next(f for f in found.figures if f.statistic == "system_level_pairwise_accuracy")
    assert figure.note == "across 31 systems, 30 of them with one item (its mean the same in every resample)"


def test_counts_give_the_statistics_of_the_expanded_resample():
    from scipy import stats

    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, size=40).astype(float)  # ties on purpose
    y = x + rng.normal(size=40)
    counts = rng.multinomial(40, np.full(40, 1 / 40)).astype(float)
    expanded = np.repeat(np.arange(40), counts.astype(int))
    presort = np.argsort(x)
    ranks = weighted_ranks(x, counts, presort)
    assert np.allclose(np.repeat(ranks, counts.astype(int)), stats.rankdata(x[expanded]))
    distinct = weighted_ranks(y, counts, np.argsort(y))  # no ties: the shorter path
    assert np.allclose(np.repeat(distinct, counts.astype(int)), stats.rankdata(y[expanded]))
    assert weighted_correlation(x, y, counts) == pytest.approx(stats.pearsonr(x[expanded], y[expanded])[0])
    assert np.isnan(weighted_correlation(np.ones(40), y, counts))


def test_binary_labels_get_balanced_accuracy_per_system_and_its_macro_average():
    systems = ["a"] * 4 + ["b"] * 4
    human = np.array([1, 1, 0, 0, 1, 0, 0, 0], dtype=float)
    said = np.array([1, 0, 0, 0, 1, 1, 0, 0], dtype=float)
    found = system_agreement(LabelType.BINARY, systems, human, said, said=said, resamples=200, seed=0, confidence=0.95)
    assert found is not None
    by_system = {r.system: r.value for r in found.rows}
    assert by_system == {"a": pytest.approx(0.75), "b": pytest.approx((1 + 2 / 3) / 2)}
    macro = next(f for f in found.figures if f.statistic == "balanced_accuracy_system_macro")
    assert macro.value == pytest.approx((0.75 + 5 / 6) / 2)
    assert not any(f.statistic.startswith("partial") for f in found.figures)


def test_one_system_or_no_system_gives_no_system_figures():
    labels, preds = system_set(lambda quality, label, rng: label)
    one = LabelledSet("one", tuple(dataclasses.replace(i, system="x") for i in labels.items))
    assert measure(one, preds, AgreementSettings(resamples=100)).systems is None
    none = LabelledSet("none", tuple(dataclasses.replace(i, system=None) for i in labels.items))
    assert measure(none, preds, AgreementSettings(resamples=100)).systems is None
    with pytest.raises(KeyError):
        measure(none, preds, AgreementSettings(resamples=100)).figure("partial_pearson")
    some = LabelledSet("some", (*labels.items[:-3], *none.items[-3:]))
    partly = measure(some, preds, AgreementSettings(resamples=100))
    assert partly.systems is None and "3 items name no system: no partial or system-level figures" in partly.notes


def test_the_system_field_in_the_schema_and_in_a_column_mapping():
    record = {"id": "1", "metric": "m", "label": 1, "label_type": "binary", "actual_output": "a", "system": 7}
    item = parse_item(record, path="f", line=1)
    assert item.system == "7" and item.to_record()["system"] == "7"
    assert parse_item({**record, "system": None}, path="f", line=1).to_record().get("system") is None
    mapping = ColumnMapping.parse("actual_output=answer,label=score,system=model")
    items = map_rows(
        [(1, {"answer": "x", "score": 1, "model": "rag-v2"})], mapping, metric="m", label_type=LabelType.BINARY
    )
    assert items[0].system == "rag-v2"


def test_the_command_writes_partial_and_system_level_keys(tmp_path, capsys):
    labels, preds = system_set(lambda quality, label, rng: quality + rng.normal(0, 0.02), per_system=30)
    rows = [{"answer": "a", "score": i.label, "model": i.system, "key": i.id} for i in labels.items]
    write_jsonl(tmp_path / "labels.jsonl", rows)
    write_jsonl(tmp_path / "judge.jsonl", [{"id": k[0], "score": p.score} for k, p in preds.by_key.items()])
    code = main(
        [
            "agreement",
            "--labels",
            str(tmp_path / "labels.jsonl"),
            "--columns",
            "id=key,actual_output=answer,label=score,system=model",
            "--label-type",
            "continuous",
            "--scale",
            "0,1",
            "--metric",
            "faithfulness",
            "--predictions",
            str(tmp_path / "judge.jsonl"),
            "--resamples",
            "200",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 0
    report = json.loads((tmp_path / "out" / "agreement.json").read_text())["metrics"]["faithfulness"]
    aware = report["system_aware"]
    for key in ("partial_pearson", "partial_spearman"):
        assert set(aware[key]) >= {"value", "ci"} and len(aware[key]["ci"]) == 2
    assert {k for k in aware if "system_level" in k} == {
        "system_level_pearson",
        "system_level_spearman",
        "system_level_kendall",
        "system_level_pairwise_accuracy",
    }
    assert [row["system"] for row in aware["per_system"]] == sorted(QUALITY)
    markdown = compact((tmp_path / "out" / "agreement.md").read_text())
    assert "| partial_pearson |" in markdown and "| weak | 30 |" in markdown
    assert markdown.count("When to read which:") == 1 and "partial ones for whether" in markdown


def test_the_shared_sets_name_their_systems(shared_datasets, monkeypatch):
    """ALCE and Topical-Chat through their loaders: systems set, and the partial figures equal FRANK's recipe."""
    from scipy import stats

    from judges.labels.label_sets import open_labels

    monkeypatch.setenv("JUDGELAB_SHARED", str(shared_datasets))
    alce = open_labels("alce")
    assert len({i.system for i in alce.items}) == 8 and all(i.system for i in alce.items)
    chat = open_labels("topical-chat")
    assert len({i.system for i in chat.items}) == 6
    # another human score of the same responses (engagingness) stands in for a judge
    judge = {i.id: float(i.extra["scores"]["engagingness"]) for i in chat.items}
    preds = Predictions({(k, None): Prediction(k, VerdictState.GRADE, v) for k, v in judge.items()}, "engagingness")
    result = measure(chat, preds, AgreementSettings(resamples=200))
    systems = [i.system for i in chat.items]
    human = np.array([i.label for i in chat.items])
    rj = frank_residuals(systems, np.array([judge[i.id] for i in chat.items]))
    rh = frank_residuals(systems, human)
    assert result.figure("partial_pearson").value == pytest.approx(stats.pearsonr(rh, rj)[0], abs=1e-9)
    assert result.figure("partial_spearman").value == pytest.approx(stats.spearmanr(rh, rj)[0], abs=1e-9)
    assert result.systems is not None and {r.n_items for r in result.systems.rows} == {60}
    # the worked example of docs/choosing.md: naturalness tells the systems apart, not the grounded responses
    natural = {i.id: float(i.extra["scores"]["naturalness"]) for i in chat.items}
    preds = Predictions({(k, None): Prediction(k, VerdictState.GRADE, v) for k, v in natural.items()}, "naturalness")
    result = measure(chat, preds, AgreementSettings(resamples=100))
    assert result.figure("pearson").value == pytest.approx(0.3422, abs=5e-5)
    assert result.figure("partial_pearson").value == pytest.approx(0.0594, abs=5e-5)
    assert result.figure("system_level_pairwise_accuracy").value == 1.0


def test_a_judge_constant_within_each_system_has_no_partial_correlation():
    """Its residuals are rounding noise around 0: undefined, not a correlation of noise."""
    labels, preds = system_set(lambda quality, label, rng: quality * 0.7 + 0.1)
    result = measure(labels, preds, AgreementSettings(resamples=100))
    assert result.figure("partial_pearson").value is None and result.figure("partial_spearman").value is None
    assert result.figure("system_level_pairwise_accuracy").value == 1.0


def test_above_the_bootstrap_size_the_intervals_are_asymptotic_and_close_to_the_bootstrap():
    from judges.agreement.statistics import BOOTSTRAP_ITEMS

    rng = np.random.default_rng(0)
    n, n_systems = 6000, 6
    code = rng.integers(0, n_systems, n)
    quality = np.linspace(0.45, 0.55, n_systems)[code]
    human = np.clip(quality + rng.normal(0, 0.15, n), 0, 1)
    judge = np.clip(0.5 * human + 0.5 * quality + rng.normal(0, 0.1, n), 0, 1)
    systems = [f"s{k}" for k in code]
    settings = dict(resamples=1000, seed=0, confidence=0.95)
    boot = system_agreement(LabelType.CONTINUOUS, systems, human, judge, **settings)
    fast = system_agreement(LabelType.CONTINUOUS, systems, human, judge, bootstrap_items=1000, **settings)
    assert boot is not None and fast is not None and BOOTSTRAP_ITEMS == 20_000
    by_boot, by_fast = {f.statistic: f for f in boot.figures}, {f.statistic: f for f in fast.figures}
    for name in ("partial_pearson", "partial_spearman", "system_level_pearson"):
        a, b = by_boot[name], by_fast[name]
        width = a.ci[1] - a.ci[0]
        assert a.value == b.value and width > 0
        assert abs(a.ci[0] - b.ci[0]) < 0.15 * width and abs(a.ci[1] - b.ci[1]) < 0.15 * width, name
    # Fisher z with n - 3 - (g - 1) degrees of freedom, by hand
    r = by_fast["partial_pearson"].value
    half = 1.959964 * np.sqrt(1 / (n - 3 - (n_systems - 1)))
    assert by_fast["partial_pearson"].ci == pytest.approx(
        (np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half))
    )
    assert "Fisher z" in by_fast["partial_spearman"].note and "1.06" in by_fast["partial_spearman"].note
    assert by_boot["partial_pearson"].note is None
    # binary labels: the macro balanced accuracy from multinomial counts, close to the item bootstrap
    truth, said = (human > 0.5).astype(float), (judge > 0.5).astype(float)
    boot = system_agreement(LabelType.BINARY, systems, truth, judge, said=said, **settings)
    fast = system_agreement(LabelType.BINARY, systems, truth, judge, said=said, bootstrap_items=1000, **settings)
    assert boot is not None and fast is not None
    a, b = (next(f for f in found.figures if f.statistic == "balanced_accuracy_system_macro") for found in (boot, fast))
    width = a.ci[1] - a.ci[0]
    assert a.value == b.value and "multinomial" in (b.note or "")
    assert abs(a.ci[0] - b.ci[0]) < 0.15 * width and abs(a.ci[1] - b.ci[1]) < 0.15 * width


def test_items_left_out_by_the_policy_leave_the_systems_aligned_with_the_kept_items():
    labels, preds = system_set(lambda quality, label, rng: label + rng.normal(0, 0.05))
    nulls = {f"weak-{k}" for k in range(10)} | {f"strong-{k}" for k in range(30)}
    by_key = {
        key: (Prediction(key[0], VerdictState.NULL, None) if key[0] in nulls else p) for key, p in preds.by_key.items()
    }
    result = measure(labels, Predictions(by_key, "test"), AgreementSettings(resamples=100))
    assert result.systems is not None
    rows = {row.system: row for row in result.systems.rows}
    assert {name: row.n_items for name, row in rows.items()} == {"fair": 50, "good": 50, "strong": 20, "weak": 40}
    kept = [i for i in labels.items if i.system == "strong" and i.id not in nulls]
    assert rows["strong"].human_mean == pytest.approx(np.mean([i.label for i in kept]))


def test_a_large_set_takes_the_asymptotic_intervals_through_measure():
    labels, preds = system_set(lambda quality, label, rng: label + rng.normal(0, 0.1), per_system=5001)
    result = measure(labels, preds, AgreementSettings(resamples=100))
    partial = result.figure("partial_pearson")
    assert partial.n_items == 20_004 and "Fisher z" in (partial.note or "") and partial.ci[0] < partial.value
    assert "normal bootstrap law" in (result.figure("system_level_pearson").note or "")
