"""Agreement statistics: exact values on hand-computed cases, the bootstrap, ceilings, policies, predictions, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT, compact, write_jsonl

from judges.agreement import statistics as st
from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.bootstrap import ItemRows, figures, percentile_interval, resample_blocks
from judges.agreement.label_rows import ceiling_rows, minmax_scale
from judges.agreement.measure import measure
from judges.agreement.policy import Policy
from judges.agreement.predictions import Prediction, Predictions, read_predictions
from judges.agreement.statistic_index import INDEX, choose_statistics, for_label_type
from judges.agreement.threshold import Calibration
from judges.cli.main import main
from judges.errors import ConfigError, InputError
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.types import Sample, VerdictState


def built(name: str) -> st.Statistic:
    """A statistic as its descriptor builds it (its function, weighted form and bootstrap settings)."""
    descriptor = INDEX[name]  # on continuous labels where it is reported there (it reads the judge's values as given)
    order = (st.LabelType.CONTINUOUS, st.LabelType.BINARY, st.LabelType.PREFERENCE)
    return descriptor.statistic(next(t for t in order if t in descriptor.label_types), (0.0, 1.0))


SAMPLE = Sample(input="q", references=("r",), expected_output="", actual_output="a")


def labelled_set(label_type, scale, rows, metric="m"):
    """rows: (id, annotator, label)."""
    items = tuple(
        LabelledItem(
            id=str(i),
            metric=metric,
            label=float(label),
            label_type=label_type,
            scale=scale,
            annotator=ann,
            sample=SAMPLE,
            answer_b="b" if label_type is LabelType.PREFERENCE else None,
        )
        for i, ann, label in rows
    )
    return LabelledSet("test", items)


def predictions(scores):
    """scores: id -> number, None (a null) or "failed"."""
    out = {}
    for key, score in scores.items():
        if score == "failed":
            out[(str(key), None)] = Prediction(str(key), VerdictState.FAILURE, message="timeout")
        elif score is None:
            out[(str(key), None)] = Prediction(str(key), VerdictState.NULL)
        else:
            out[(str(key), None)] = Prediction(str(key), VerdictState.GRADE, float(score))
    return Predictions(out, source="test")


A = np.array


# --- exact values on small hand-computed cases -------------------------------------------------------------


def test_correlations_by_hand():
    # deviations (-2,-1,0,1,2) and (-1,-2,1,0,2): sum of products 8, sums of squares 10 -> r = 0.8;
    # the values are their own ranks, so rho = 0.8; 8 concordant and 2 discordant pairs -> tau = 0.6.
    h, j = A([1, 2, 3, 4, 5.0]), A([2, 1, 4, 3, 5.0])
    assert built("pearson")(h, j) == pytest.approx(0.8)
    assert built("spearman")(h, j) == pytest.approx(0.8)
    assert built("kendall_tau_b")(h, j) == pytest.approx(0.6)


def test_quadratic_weighted_kappa_by_hand():
    # weights (i-j)^2/4 on 3 levels; observed disagreement (1/4 + 1/4)/4 = 1/8; expected
    # sum(r_i c_j w_ij)/16 = 5.5/16; kappa = 1 - (1/8)/(5.5/16) = 7/11.
    stat = choose_statistics(LabelType.ORDINAL, (1, 3), st.JudgeScale(True, False, None))[3]
    assert stat.name == "weighted_kappa"
    assert stat(A([1, 2, 3, 3.0]), A([1, 3, 3, 2.0])) == pytest.approx(7 / 11)


def test_krippendorff_alpha_by_hand():
    # interval alpha, coders (1,2,3) and (1,3,3): D_o = 2/6, D_e = 58/30, alpha = 1 - 5/29 = 24/29
    interval = choose_statistics(LabelType.CONTINUOUS, (1, 3), st.JudgeScale(True, False, None))[-1]
    assert interval(A([1, 2, 3.0]), A([1, 3, 3.0])) == pytest.approx(24 / 29)
    # nominal alpha on 8 binary units with 2 disagreements: D_o = 4/16, D_e = 128/240 -> 0.53125
    nominal = choose_statistics(LabelType.BINARY, (0, 1), st.JudgeScale(True, True, None))[-1]
    assert nominal(A([1, 1, 1, 0, 0, 0, 1, 0.0]), A([1, 1, 0, 0, 0, 1, 1, 0.0])) == pytest.approx(0.53125)


def test_binary_statistics_by_hand():
    # TP 3, FN 1, FP 1, TN 3: balanced accuracy (3/4 + 3/4)/2, F1 6/8, MCC (9 - 1)/sqrt(4^4) = 0.5
    h, j = A([1, 1, 1, 0, 0, 0, 1, 0.0]), A([1, 1, 0, 0, 0, 1, 1, 0.0])
    assert built("balanced_accuracy")(h, j) == pytest.approx(0.75)
    assert built("f1")(h, j) == pytest.approx(0.75)
    assert built("mcc")(h, j) == pytest.approx(0.5)
    # 3 of the 4 (positive, negative) pairs are ordered by the score
    assert built("auroc")(A([1, 1, 0, 0.0]), A([0.9, 0.4, 0.5, 0.1])) == pytest.approx(0.75)


def test_preference_agreement_by_hand():
    h, j = A([2, -1, 0, 1.0]), A([0.5, -0.2, 0.3, -0.1])
    assert built("agreement")(h, j) == 0.5  # rows 1, 2 agree; a human tie against a judge preference disagrees
    assert built("agreement_decisive")(h, j) == pytest.approx(2 / 3)  # without the human tie


def test_undefined_statistics_are_nan_not_errors():
    assert np.isnan(built("pearson")(A([1, 1, 1.0]), A([1, 2, 3.0])))
    assert np.isnan(built("auroc")(A([1, 1, 1.0]), A([0.1, 0.2, 0.3])))


# --- statistics chosen by the label type and the judge's scale ----------------------------------------------


CHANCE = ["cohen_kappa", "gwet_ac1"]


@pytest.mark.parametrize(
    "label_type, scale, judge, names",
    [
        (
            LabelType.ORDINAL,
            (1, 5),
            [1, 3, 5],
            ["pearson", "spearman", "kendall_tau_b", "weighted_kappa", "krippendorff_alpha"],
        ),
        (LabelType.CONTINUOUS, (0, 1), [0, 0.5, 1], ["pearson", "spearman", "kendall_tau_b", "krippendorff_alpha"]),
        (LabelType.BINARY, (0, 1), [0, 1, 1], ["balanced_accuracy", "f1", "mcc", *CHANCE, "krippendorff_alpha"]),
        (
            LabelType.BINARY,
            (0, 1),
            [0.2, 0.7],
            ["balanced_accuracy", "f1", "mcc", *CHANCE, "krippendorff_alpha", "auroc"],
        ),
        (
            LabelType.PREFERENCE,
            (-2, 2),
            [0.3, -0.1],
            ["agreement", "agreement_decisive", "pearson", "spearman", "kendall_tau_b"],
        ),
    ],
)
def test_statistics_by_label_type(label_type, scale, judge, names):
    threshold = 0.5 if label_type is LabelType.BINARY else None  # a continuous score is cut only at a given cut
    stats = choose_statistics(label_type, scale, st.describe_judge(judge, label_type, scale, threshold))
    assert [s.name for s in stats] == names and all(s.reason is None for s in stats)


def test_a_continuous_score_has_no_fixed_cut_any_more():
    uncut = st.describe_judge([0.2, 0.7], LabelType.BINARY, (0, 1))
    assert uncut.threshold is None
    stats = choose_statistics(LabelType.BINARY, (0, 1), uncut)
    assert [s.name for s in stats if s.reason is None] == ["auroc"]


def test_off_scale_judges_get_no_kappa_alpha_or_uncut_binary_statistics():
    ordinal = choose_statistics(LabelType.ORDINAL, (1, 5), st.describe_judge([0.1, 0.9], LabelType.ORDINAL, (1, 5)))
    assert {s.name: s.reason is None for s in ordinal} == {
        "pearson": True,
        "spearman": True,
        "kendall_tau_b": True,
        "weighted_kappa": False,
        "krippendorff_alpha": False,
    }
    binary = choose_statistics(LabelType.BINARY, (0, 1), st.describe_judge([1, 3, 5], LabelType.BINARY, (0, 1)))
    assert [s.name for s in binary if s.reason is None] == ["auroc"]
    given = st.describe_judge([1, 3, 5], LabelType.BINARY, (0, 1), threshold=3)
    assert given.threshold == 3 and all(s.reason is None for s in choose_statistics(LabelType.BINARY, (0, 1), given))


# --- the bootstrap -----------------------------------------------------------------------------------------


def test_resamples_come_in_blocks_of_the_one_seeded_draw_and_items_keep_their_rows_together():
    whole = np.random.default_rng(3).integers(0, 5, size=(200, 5))
    blocks = list(resample_blocks(5, 200, seed=3, block_values=35))  # 7 resamples of 5 items per block
    assert [b.shape[0] for b in blocks] == [7] * 28 + [4] and np.array_equal(np.concatenate(blocks), whole)
    assert not np.array_equal(np.concatenate(list(resample_blocks(5, 200, seed=4))), whole)
    # items 0 and 1 have two rows each, item 2 one: a resample weighs each row by its item's draw count
    rows = ItemRows.of([np.array([0, 1]), np.array([2, 3]), np.array([4])])
    assert rows.row_item.tolist() == [0, 0, 1, 1, 2] and len(rows) == 3
    assert rows.weights(np.array([[1, 1, 2], [0, 0, 0]])).tolist() == [[0, 0, 2, 2, 1], [3, 3, 0, 0, 0]]
    assert rows.members() is None  # ragged: no (items, rows) matrix
    assert ItemRows.repeated(np.array([2, 2])).members().tolist() == [[0, 1], [2, 3]]


def test_percentile_interval_and_undefined_resamples():
    values = np.arange(1001, dtype=float)
    (low, high), undefined = percentile_interval(values, 0.95)
    assert (low, high, undefined) == (25.0, 975.0, 0)
    values[:600] = np.nan
    assert percentile_interval(values, 0.95) == (None, 600)


def test_bootstrap_interval_holds_the_estimate_and_is_deterministic_with_the_seed():
    rng = np.random.default_rng(0)
    h = rng.integers(1, 6, 120).astype(float)
    j = np.clip(h + rng.integers(-1, 2, 120), 1, 5)
    groups = [np.array([i]) for i in range(120)]
    stats = choose_statistics(LabelType.ORDINAL, (1, 5), st.describe_judge(j, LabelType.ORDINAL, (1, 5)))
    views = {"value": j, "scaled": j, "binary": j}
    first = figures(stats, h, views, groups, resamples=200, seed=11)
    assert first == figures(stats, h, views, groups, resamples=200, seed=11)
    other = figures(stats, h, views, groups, resamples=200, seed=12)
    for fig, moved in zip(first, other, strict=True):
        assert fig.ci[0] < fig.value < fig.ci[1] and (fig.n, fig.n_items) == (120, 120)
        assert fig.ci != moved.ci and fig.value == moved.value


# --- measure(): pooled rows, ceilings, policies ------------------------------------------------------------


def test_preference_ceiling_and_pooled_judge_rows():
    a1, a2 = [2, 1, 0, -1, -2], [1, 2, 0, -2, -1]
    rows = [(i, "a1", a1[i]) for i in range(5)] + [(i, "a2", a2[i]) for i in range(5)]
    judge = [0.4, 0.3, 0.0, 0.1, -0.5]  # item 3: the judge prefers b, both annotators preferred a
    result = measure(
        labelled_set(LabelType.PREFERENCE, (-2, 2), rows),
        predictions(dict(enumerate(judge))),
        AgreementSettings(resamples=200),
    )
    # human-human: deviations (2,1,0,-1,-2) and (1,2,0,-2,-1): products sum 8 over 10 -> 0.8
    assert result.figure("pearson", ceiling=True).value == pytest.approx(0.8)
    assert result.figure("pearson", ceiling=True).n == 5
    pooled = np.corrcoef(a1 + a2, judge + judge)[0, 1]  # the judge value repeated once per annotator
    assert result.figure("pearson").value == pytest.approx(pooled) and result.figure("pearson").n == 10
    assert result.figure("agreement").value == pytest.approx(8 / 10)  # the tie on item 2 (judge 0) agrees
    assert result.figure("agreement_decisive").value == pytest.approx(6 / 8)  # without the tie's two rows
    assert result.annotators == ["a1", "a2"] and result.n_items == 5 and result.n_labels == 10


def test_no_ceiling_with_one_annotator_and_three_annotators_give_three_pairs():
    single = labelled_set(LabelType.ORDINAL, (1, 5), [(i, "x", 1 + i % 5) for i in range(10)])
    result = measure(single, predictions({i: 1 + (i + 1) % 5 for i in range(10)}), AgreementSettings(resamples=100))
    assert result.ceiling == []
    annotations = [[("a", 1.0), ("b", 2.0), ("c", 3.0)], [("b", 4.0), ("a", 5.0)]]
    first, second, groups = ceiling_rows(annotations)
    assert first.tolist() == [1, 1, 2, 5] and second.tolist() == [2, 3, 3, 4]
    assert groups.row_item.tolist() == [0, 0, 0, 1] and groups.n_items == 2


def test_minmax_scaling_maps_the_difference_onto_the_label_scale():
    assert minmax_scale(A([-1, 0, 3.0]), (-2, 2)).tolist() == [-2, -1, 2]
    assert minmax_scale(A([0.5, 0.5]), (-2, 2)).tolist() == [0.5, 0.5]


BINARY_ROWS = [(i, "h", label) for i, label in enumerate([1, 0, 1, 0, 1, 0, 1, 0])]
OUTCOMES = {0: 1, 1: 0, 2: 1, 3: None, 4: "failed", 6: 1, 7: 0}  # item 5 has no prediction


@pytest.mark.parametrize(
    "policy, counts, n, balanced_accuracy",
    [
        # kept items 0,1,2,6,7 all right
        (Policy.EXCLUDE, {"excluded": 3, "counted_wrong": 0, "imputed": 0}, 5, 1.0),
        # items 3 (label 0), 4 (label 1), 5 (label 0) get 1, 0, 1: TP 3 FN 1 TN 2 FP 2 -> (3/4 + 2/4)/2
        (Policy.WRONG, {"excluded": 0, "counted_wrong": 3, "imputed": 0}, 8, 0.625),
        # the median of the graded 1,0,1,1,0 is 1: TP 4 FN 0 TN 2 FP 2 -> (1 + 2/4)/2
        (Policy.IMPUTE, {"excluded": 0, "counted_wrong": 0, "imputed": 3}, 8, 0.75),
    ],
)
def test_policies_and_their_counts(policy, counts, n, balanced_accuracy):
    result = measure(
        labelled_set(LabelType.BINARY, (0, 1), BINARY_ROWS),
        predictions(OUTCOMES),
        AgreementSettings(policy=policy.value, resamples=100),
    )
    got = result.counts.to_dict()
    assert {k: got[k] for k in ("graded", "null", "failed", "missing")} == {
        "graded": 5,
        "null": 1,
        "failed": 1,
        "missing": 1,
    }
    assert {k: got[k] for k in counts} == counts
    figure = result.figure("balanced_accuracy")
    assert figure.n == n and figure.value == pytest.approx(balanced_accuracy)


def test_wrong_for_a_continuous_judge_takes_the_far_end_of_its_range():
    rows = [(i, "h", label) for i, label in enumerate([1, 1, 0, 0, 1])]
    result = measure(
        labelled_set(LabelType.BINARY, (0, 1), rows),
        predictions({0: 7, 1: 9, 2: 3, 3: 2, 4: None}),
        AgreementSettings(policy=Policy.WRONG.value, threshold=5, resamples=100),
    )
    # item 4 (label 1) gets the judge's lowest value, 2: positives 7, 9, 2 against negatives 3, 2 order
    # 4 pairs right, 1 wrong and 1 tie (half) -> 4.5 / 6
    assert result.figure("auroc").value == pytest.approx(4.5 / 6)
    assert result.judge_scale.threshold == 5


def test_no_matching_prediction_is_one_clear_error():
    with pytest.raises(InputError, match="no graded judge outcome for any m item"):
        measure(labelled_set(LabelType.BINARY, (0, 1), BINARY_ROWS), predictions({"x9": 1}))


def test_unmatched_predictions_are_counted():
    result = measure(
        labelled_set(LabelType.BINARY, (0, 1), BINARY_ROWS),
        predictions({**{i: i % 2 for i in range(8)}, "extra": 1}),
        AgreementSettings(resamples=100),
    )
    assert result.unmatched_predictions == 1 and result.counts.graded == 8


# --- reading external predictions -------------------------------------------------------------------------


def test_predictions_from_jsonl_json_list_and_json_object(tmp_path):
    lines = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"id": 1, "score": 4},
            {"id": 2, "score": None},
            {"id": 3, "score": 2, "error": "timeout"},
            {"id": 4, "score": "3.5"},
        ],
    )
    got = read_predictions(lines).by_key
    assert [(p.state.value, p.score) for p in got.values()] == [
        ("grade", 4.0),
        ("null", None),
        ("failure", None),
        ("grade", 3.5),
    ]
    listed = tmp_path / "p.json"
    listed.write_text(json.dumps([{"uid": "a", "out": {"s": 0.5}}]), encoding="utf-8")
    assert read_predictions(listed, id_field="uid", score_field="out.s").get("a", "m").score == 0.5
    mapping = tmp_path / "m.json"
    mapping.write_text('{"a": 1, "b": 0.5, "c": null}', encoding="utf-8")
    states = {k[0]: p.state.value for k, p in read_predictions(mapping).by_key.items()}
    assert states == {"a": "grade", "b": "grade", "c": "null"}


def test_pair_scores_give_the_preference_for_answer_b(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": 1, "m1": {"correctness": 0.2}, "m2": {"correctness": 0.5}}])
    got = read_predictions(path, score_field="m1.{metric},m2.{metric}", metric="correctness")
    assert got.get("1", "correctness").score == pytest.approx(0.3)


def test_rows_with_a_metric_field_are_kept_per_metric(tmp_path):
    path = write_jsonl(
        tmp_path / "p.jsonl", [{"id": 1, "metric": "a", "score": 1}, {"id": 1, "metric": "b", "score": 0}]
    )
    got = read_predictions(path)
    assert got.get("1", "a").score == 1 and got.get("1", "b").score == 0 and got.get("1", "c") is None


@pytest.mark.parametrize(
    "rows, message",
    [
        ([{"id": 1, "score": "high"}], r"p.jsonl:1: expected a number or null, got 'high' \(field 'score'\)"),
        ([{"score": 1}], r"p.jsonl:1: missing id \(field 'id'\)"),
        ([{"id": 1, "score": 1}, {"id": 1, "score": 2}], r"p.jsonl:2: line 2: a second prediction for item '1'"),
        ([{"id": 1, "value": 1}], r"p.jsonl:1: missing score \(field 'score'\)"),
    ],
)
def test_bad_prediction_files_name_the_line_and_field(tmp_path, rows, message):
    with pytest.raises(InputError, match=message):
        read_predictions(write_jsonl(tmp_path / "p.jsonl", rows))


def test_bad_entry_of_a_json_list_is_named(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"id": 1, "score": 1}, {"id": 2, "score": [1]}]), encoding="utf-8")
    with pytest.raises(InputError, match=r"p.json: entry 2: expected a number or null, got a list"):
        read_predictions(path)
    with pytest.raises(ConfigError, match="--score-field"):
        read_predictions(path, score_field="a,b,c")


# --- the command -------------------------------------------------------------------------------------------


def test_agreement_command_writes_json_and_markdown(tmp_path, capsys):
    labels = [
        {
            "id": i,
            "metric": "usefulness",
            "label": 1 + i % 5,
            "label_type": "ordinal",
            "scale": [1, 5],
            "annotator": ann,
            "input": "q",
            "actual_output": "a",
        }
        for i in range(30)
        for ann in ("x", "y")
    ]
    labels = [dict(r, label=r["label"] if r["annotator"] == "x" else min(5, r["label"] + 1)) for r in labels]
    preds = [{"id": i, "score": 1 + (i + (i % 3 == 0)) % 5} for i in range(29)] + [{"id": 29, "score": None}]
    labels_path = write_jsonl(tmp_path / "labels.jsonl", labels)
    preds_path = write_jsonl(tmp_path / "preds.jsonl", preds)
    code = main(
        [
            "agreement",
            "--labels",
            str(labels_path),
            "--predictions",
            str(preds_path),
            "--policy",
            "exclude",
            "--out",
            str(tmp_path / "out"),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| weighted_kappa |" in compact(printed) and "1 null" in printed and "wrote" in printed
    data = json.loads((tmp_path / "out" / "agreement.json").read_text())
    usefulness = data["metrics"]["usefulness"]
    assert usefulness["outcomes"]["excluded"] == 1 and usefulness["annotators"] == ["x", "y"]
    kappa = next(f for f in usefulness["judge"] if f["statistic"] == "weighted_kappa")
    assert kappa["n"] == 58 and kappa["n_items"] == 29 and kappa["ci"][0] <= kappa["value"] <= kappa["ci"][1]
    assert len(usefulness["ceiling"]) == 5 and usefulness["ceiling"][0]["n"] == 30
    assert "| pearson |" in compact((tmp_path / "out" / "agreement.md").read_text())


def test_agreement_command_reads_a_users_csv(tmp_path, capsys):
    csv_path = tmp_path / "mine.csv"
    csv_path.write_text(
        "qid,question,answer,ok\n" + "".join(f"{i},q{i},a{i},{i % 2}\n" for i in range(20)), encoding="utf-8"
    )
    preds = write_jsonl(tmp_path / "p.jsonl", [{"qid": i, "p": 0.9 if i % 2 else 0.2 + i / 100} for i in range(20)])
    code = main(
        [
            "agreement",
            "--labels",
            str(csv_path),
            "--columns",
            "id=qid,input=question,actual_output=answer,label=ok",
            "--metric",
            "faithfulness",
            "--label-type",
            "binary",
            "--predictions",
            str(preds),
            "--id-field",
            "qid",
            "--score-field",
            "p",
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    auroc = next(
        f
        for f in json.loads((tmp_path / "o" / "agreement.json").read_text())["metrics"]["faithfulness"]["judge"]
        if f["statistic"] == "auroc"
    )
    assert auroc["value"] == 1.0 and auroc["n"] == 20


@pytest.mark.parametrize(
    "args, message",
    [
        (["--labels", "ragcheker", "--predictions", "p.jsonl"], "did you mean ragchecker"),
        (["--labels", "alce", "--predictions", "missing.jsonl"], "missing.jsonl: file not found"),
        (["--labels", "alce", "--predictions", "p.jsonl", "--metric", "faithfulness"], "no labels for metric"),
        (
            ["--labels", "x.csv", "--predictions", "p.jsonl", "--columns", "input=a,actual_output=b,label=c"],
            "--columns needs --label-type",
        ),
    ],
)
def test_agreement_command_errors_are_one_line(tmp_path, monkeypatch, mini_shared, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "p.jsonl", [{"id": 1, "score": 1}])
    assert main(["agreement", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("judgelab: error:") and message in err and "\n" not in err


def test_wikieval_pairs_from_a_local_copy_through_the_command(tmp_path, monkeypatch):
    import datasets
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    # item 0: the judge prefers answer a (as the labels do); item 1: answer b; item 2: a tie
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"id": 0, "a": 5, "b": 1}, {"id": 1, "a": 2, "b": 4}, {"id": 2, "a": 3, "b": 3}]
    )
    code = main(
        [
            "agreement",
            "--labels",
            f"wikieval:{ROOT / 'tests' / 'data' / 'wikieval'}",
            "--metric",
            "faithfulness",
            "--predictions",
            str(preds),
            "--score-field",
            "a,b",
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    judge = {
        f["statistic"]: f
        for f in json.loads((tmp_path / "o" / "agreement.json").read_text())["metrics"]["faithfulness"]["judge"]
    }
    assert judge["agreement"]["value"] == pytest.approx(1 / 3) and judge["agreement"]["n"] == 3
    assert judge["pearson"]["value"] is None and judge["pearson"]["note"].startswith("undefined")


# --- thresholds fitted for binary agreement ------------------------------------------------------------------


def _separable(n=40):
    """Binary labels and an embedding-like score crowded in [0.85, 0.95]: positives above 0.9, negatives below."""
    labels = [i % 2 for i in range(n)]
    scores = {i: (0.91 + 0.04 * i / n) if labels[i] else (0.85 + 0.04 * i / n) for i in range(n)}
    return labelled_set(LabelType.BINARY, (0, 1), [(i, "h", lab) for i, lab in enumerate(labels)]), predictions(scores)


def test_a_crowded_score_gets_a_fitted_threshold_not_the_fixed_half():
    labels, preds = _separable()
    result = measure(labels, preds, AgreementSettings(resamples=100))
    # the old fixed 0.5 cut called every item positive: balanced accuracy 0.5; the cross-fitted cut separates them
    assert result.figure("balanced_accuracy").value == pytest.approx(1.0)
    assert result.figure("auroc").value == pytest.approx(1.0)
    fit = result.threshold
    assert fit.split == "cross-fitted" and fit.folds == 5 and fit.n_calibration_items == 40
    assert fit.rule == "label 1 when score >= 0.8995"  # midway between 0.889 (top negative) and 0.910
    from sklearn.metrics import roc_curve

    h = np.array([i % 2 for i in range(40)])
    s = np.array([preds.get(str(i), "m").score for i in range(40)])
    fpr, tpr, cuts = roc_curve(h, s, drop_intermediate=False)
    best = np.argmax((tpr - fpr)[1:]) + 1  # Youden's J on all items, midway to the next lower score
    assert fit.value == pytest.approx((cuts[best] + cuts[best + 1]) / 2)
    assert fit.value == pytest.approx((min(s[h == 1]) + max(s[h == 0])) / 2)


def test_a_calibration_fraction_fits_on_its_items_and_reports_on_the_rest():
    labels, preds = _separable(200)
    result = measure(labels, preds, AgreementSettings(resamples=100), calibration=Calibration(fraction=0.3))
    assert result.threshold.split == "calibration-fraction" and result.threshold.n_calibration_items == 60
    assert result.n_items == 140 and result.figure("auroc").n_items == 140
    assert result.figure("balanced_accuracy").value == pytest.approx(1.0)
    small = measure(*_separable(40), AgreementSettings(resamples=100), calibration=Calibration(fraction=0.3))
    assert small.threshold.split == "cross-fitted" and "12 graded items (< 50)" in " ".join(small.notes)


def test_a_zero_one_judge_keeps_the_plain_cut_and_a_lower_is_better_judge_is_turned():
    labels = labelled_set(LabelType.BINARY, (0, 1), BINARY_ROWS)
    plain = measure(labels, predictions({i: 1 - i % 2 for i in range(8)}), AgreementSettings(resamples=100))
    assert plain.threshold is None and "the plain 0.5 cut" in " ".join(plain.notes)
    # a hallucination flag (1 = unfaithful) is lower-is-better: turned, it agrees perfectly
    flipped = measure(
        labels, predictions({i: i % 2 for i in range(8)}), AgreementSettings(higher_is_better=False, resamples=100)
    )
    assert (
        flipped.figure("balanced_accuracy").value == 1.0 and flipped.to_dict()["judge_direction"] == "lower is better"
    )
    # a continuous lower-is-better score: the saved rule reads "<=" on the judge's own scale
    labels40, preds40 = _separable()
    turned = predictions({i: 2 - preds40.get(str(i), "m").score for i in range(40)})  # in [1.05, 1.15], lower better
    result = measure(labels40, turned, AgreementSettings(higher_is_better=False, resamples=100))
    assert result.figure("auroc").value == pytest.approx(1.0) and result.threshold.rule.startswith(
        "label 1 when score <="
    )
    assert 1.05 <= result.threshold.value < 1.15


def test_the_agreement_command_saves_the_fitted_threshold_and_names_the_split(tmp_path, capsys):
    labels, preds = _separable()
    from judges.labels.io import write_labels

    labels_path = write_labels(tmp_path / "labels.jsonl", labels.items)
    preds_path = write_jsonl(
        tmp_path / "p.jsonl", [{"id": str(i), "score": preds.get(str(i), "m").score} for i in range(40)]
    )
    assert (
        main(
            [
                "agreement",
                "--labels",
                str(labels_path),
                "--predictions",
                str(preds_path),
                "--out",
                str(tmp_path / "o"),
                "--resamples",
                "100",
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "o" / "agreement.json").read_text())["metrics"]["m"]
    assert data["fitted_threshold"]["split"] == "cross-fitted" and 0.85 < data["fitted_threshold"]["value"] < 0.95
    markdown = compact((tmp_path / "o" / "agreement.md").read_text())
    assert "threshold fitted on 5-fold cross-fitting over all 40 items" in markdown
    balanced = next(f for f in data["judge"] if f["statistic"] == "balanced_accuracy")
    assert balanced["value"] == 1.0


# --- public shapes through --columns / --label-map only, figures checked against scipy / scikit-learn ---------

OWN = ROOT / "tests" / "data" / "own_labels"


def _judge_figures(out):
    data = json.loads((out / "agreement.json").read_text())
    [metric] = data["metrics"].values()
    return metric, {f["statistic"]: f for f in metric["judge"]}


def test_a_nested_json_mapped_on_the_command_line(tmp_path):
    from scipy import stats

    code = main(
        [
            "agreement",
            "--labels",
            str(OWN / "summeval_like.json"),
            "--columns",
            "id=id+model_id,actual_output=decoded,references=text,label=expert_annotations.*.consistency,"
            "metric=const:faithfulness",
            "--label-type",
            "ordinal",
            "--scale",
            "1,5",
            "--predictions",
            str(OWN / "summeval_like_judge.jsonl"),
            "--out",
            str(tmp_path),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    metric, judge = _judge_figures(tmp_path)
    rows = json.loads((OWN / "summeval_like.json").read_text())
    scores = {
        json.loads(line)["id"]: json.loads(line)["score"]
        for line in (OWN / "summeval_like_judge.jsonl").read_text().splitlines()
    }
    human = [a["consistency"] for r in rows for a in r["expert_annotations"]]
    repeated = [scores[f"{r['id']}/{r['model_id']}"] for r in rows for _ in r["expert_annotations"]]
    assert judge["spearman"]["value"] == pytest.approx(stats.spearmanr(human, repeated).statistic)
    assert judge["pearson"]["value"] == pytest.approx(stats.pearsonr(human, repeated).statistic)
    assert judge["spearman"]["n"] == 48 and judge["spearman"]["n_items"] == 16
    assert metric["annotators"] == ["annotator-1", "annotator-2", "annotator-3"] and len(metric["ceiling"]) == 5


def test_a_tsv_with_text_labels_and_no_question_on_the_command_line(tmp_path):
    from sklearn.metrics import roc_auc_score

    cosine = {str(line): score for line, score in zip(range(2, 10), [0.93, 0.88, 0.86, 0.94, 0.89, 0.87, 0.92, 0.90])}
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": k, "score": v} for k, v in cosine.items()])
    code = main(
        [
            "agreement",
            "--labels",
            str(OWN / "begin_like_no_question.tsv"),
            "--columns",
            "references=knowledge,actual_output=response,label=begin_label",
            "--label-map",
            "Fully attributable=1,Not fully attributable=0,Generic=0",
            "--metric",
            "faithfulness",
            "--label-type",
            "binary",
            "--predictions",
            str(preds),
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    metric, judge = _judge_figures(tmp_path / "o")
    labels = [1, 0, 0, 1, 0, 0, 1, 0]
    assert judge["auroc"]["value"] == pytest.approx(roc_auc_score(labels, list(cosine.values())))  # 1.0
    # three positives: 3-fold cross-fitting; the saved cut lies between the top negative (0.90) and 0.92
    assert metric["fitted_threshold"]["folds"] == 3 and metric["fitted_threshold"]["value"] == pytest.approx(0.91)
    assert judge["balanced_accuracy"]["value"] > 0.5


def test_a_parquet_file_with_a_zero_one_judge_on_the_command_line(tmp_path):
    import pyarrow.parquet as pq
    from sklearn.metrics import balanced_accuracy_score, f1_score, matthews_corrcoef

    rows = pq.read_table(OWN / "halubench_like.parquet").to_pylist()
    graded = [1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0]  # two mistakes: hb-3 passed, hb-6 failed
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": r["id"], "score": g} for r, g in zip(rows, graded)])
    code = main(
        [
            "agreement",
            "--labels",
            str(OWN / "halubench_like.parquet"),
            "--columns",
            "id=id,input=question,references=passage,actual_output=answer,label=label",
            "--label-map",
            "PASS=1,FAIL=0",
            "--metric",
            "faithfulness",
            "--label-type",
            "binary",
            "--predictions",
            str(preds),
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "100",
        ]
    )
    assert code == 0
    metric, judge = _judge_figures(tmp_path / "o")
    human = [1 if r["label"] == "PASS" else 0 for r in rows]
    assert judge["balanced_accuracy"]["value"] == pytest.approx(balanced_accuracy_score(human, graded))  # 5/6
    assert judge["f1"]["value"] == pytest.approx(f1_score(human, graded))
    assert judge["mcc"]["value"] == pytest.approx(matthews_corrcoef(human, graded))
    assert metric["fitted_threshold"] is None and "the plain 0.5 cut" in (tmp_path / "o" / "agreement.md").read_text()


def test_each_statistic_is_declared_once_and_the_board_and_williams_read_it_from_there():
    from judges.agreement.paired import WILLIAMS
    from judges.leaderboard.columns import chance, higher_is_better, label_statistics

    assert {"pearson", "spearman"} == WILLIAMS
    assert all(chance(name) == d.chance for name, d in INDEX.items())
    assert chance("auroc") == 0.5 and chance("mcc") == 0.0 and chance("f1") is None
    assert set(INDEX) <= label_statistics() and all(higher_is_better(name) for name in INDEX)
    assert [d.name for d in for_label_type(LabelType.PREFERENCE)] == [
        "agreement",
        "agreement_decisive",
        "pearson",
        "spearman",
        "kendall_tau_b",
    ]
