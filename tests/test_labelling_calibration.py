"""The calibration part of `judgelab agreement` on labels made with `judgelab label`: confusion matrix, recall,
the signed difference (lenient or strict) with its interval, the human ceiling, population weights."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import compact, write_jsonl
from labelling_helpers import graded_run

from judges.agreement.agreement_settings import AgreementSettings
from judges.agreement.measure import measure
from judges.agreement.predictions import Prediction, Predictions
from judges.cli.main import main
from judges.labelling.queue import QueueItem
from judges.labelling.scales import scale_for
from judges.labelling.store import append_event, event_record
from judges.labels.label_sets import open_labels
from judges.runs.run_config import RunConfig
from judges.types import Sample, VerdictState

FIRST = [1, 2, 3, 4, 1, 2, 3, 4, 2, 3]  # annotator ann-1, items i0..i9 (answer relevancy, 1-5)
SECOND = [1, 2, 3, 4, 1, 2, 3, 4, 3, 2]  # annotator ann-2 differs on i8 and i9


def labelled_items(n: int, metric: str, weights=None) -> list[QueueItem]:
    return [
        QueueItem(
            k,
            f"i{k}",
            metric,
            Sample(input=f"Question {k}?", references=(f"Reference {k}.",), expected_output="", actual_output=f"A{k}"),
            {"weight": weights[k]} if weights else {},
        )
        for k in range(n)
    ]


def write_labels(path, items, metric, by_annotator):
    scale = scale_for(metric)
    for annotator, labels in by_annotator.items():
        for item, label in zip(items, labels):
            append_event(path, event_record(item, scale, annotator, "label", label))
    return path


def test_a_judge_one_point_above_people_is_called_lenient_and_the_matrix_is_the_hand_count(tmp_path, capsys):
    metric = "answer_relevancy"
    weights = [2.0] * 5 + [8.0] * 5  # as a queue drawn with unequal chances would give
    items = labelled_items(10, metric, weights)
    labels = write_labels(tmp_path / "labels.jsonl", items, metric, {"ann-1": FIRST, "ann-2": SECOND})
    # the scripted judge grades the samples of the labelled file, always one point above ann-1
    data = write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {
                "id": f"i{k}",
                "input": f"Question {k}?",
                "references": [f"Reference {k}."],
                "expected_output": "",
                "actual_output": f"LEVEL={lab}",
            }
            for k, lab in enumerate(FIRST)
        ],
    )
    run = graded_run(
        tmp_path / "run", data, "scripted", lambda prompt: int(re.search(r"LEVEL=(\d)", prompt)[1]) + 1, metric
    )
    out = tmp_path / "report"
    code = main(["agreement", "--labels", str(labels), "--predictions", str(run), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    result = json.loads((out / "agreement.json").read_text())["metrics"][metric]
    errors = result["errors"]
    # hand count (rows: judge 1..5, columns: human 1..5) over the 20 label rows
    assert errors["confusion_matrix"]["counts"] == [
        [0, 0, 0, 0, 0],
        [4, 0, 0, 0, 0],
        [0, 5, 1, 0, 0],
        [0, 1, 5, 0, 0],
        [0, 0, 0, 4, 0],
    ]
    signed = errors["signed_difference"]
    assert signed["value"] == pytest.approx(1.0) and signed["ci"][0] > 0 and signed["n"] == 20
    assert errors["leaning"] == "lenient"
    recall = {f["statistic"]: f["value"] for f in errors["recall"]}
    assert recall["recall of human 3"] == pytest.approx(1 / 6) and recall["recall of human 1"] == 0.0
    assert recall["recall of human 5"] is None  # no human gave 5
    # the human ceiling: ann-1 against ann-2, one row per item; they agree on 8 of the 10
    ceiling = result["ceiling_errors"]
    assert ceiling["signed_difference"]["value"] == pytest.approx(0.0) and ceiling["leaning"] == "no clear leaning"
    assert sum(ceiling["confusion_matrix"]["counts"][k][k] for k in range(5)) == 8
    # population weights from the queue: the weighted signed difference is still +1 (every item's mean is 1)
    weighted = {f["statistic"]: f for f in errors["weighted"]}
    assert weighted["weighted mean signed difference (judge - human)"]["value"] == pytest.approx(1.0)
    markdown = compact((out / "agreement.md").read_text())
    assert "The judge is **lenient**: it grades higher than people by 1.00 on average" in markdown
    assert "| judge \\ human | 1 | 2 | 3 | 4 | 5 |" in markdown and "| 3 | 0 | 5 | 1 | 0 | 0 |" in markdown
    assert "inverse-probability weight" in markdown
    # the same figures from the run's results.jsonl read as a plain predictions file
    again = tmp_path / "again"
    main(
        [
            "agreement",
            "--labels",
            str(labels),
            "--predictions",
            str(run / "results.jsonl"),
            "--score-field",
            "metrics.{metric}.verdict.grade",
            "--out",
            str(again),
        ]
    )
    assert json.loads((again / "agreement.json").read_text())["metrics"][metric]["errors"] == errors


def test_a_run_folder_as_predictions_keeps_failures_apart_from_nulls(tmp_path):
    from judges.agreement.predictions import run_predictions
    from judges.records import ItemRecord, Summary
    from judges.runs.run import Run

    folder = tmp_path / "run"
    folder.mkdir()
    verdicts = [{"state": "grade", "grade": 4}, {"state": "null"}, {"state": "failure", "failure_kind": "timeout"}]
    records = [{"id": f"i{k}", "metrics": {"completeness": {"verdict": v}}} for k, v in enumerate(verdicts)]
    write_jsonl(folder / "results.jsonl", records)
    Run("grade", RunConfig.from_json({"judge": "j"}), [ItemRecord.from_json(r) for r in records], Summary()).save(
        folder
    )
    got = run_predictions(folder)
    assert got.get("i0", "completeness") == Prediction("i0", VerdictState.GRADE, 4.0, None)
    assert got.get("i1", "completeness").state is VerdictState.NULL
    assert got.get("i2", "completeness") == Prediction("i2", VerdictState.FAILURE, None, "timeout")
    assert got.get("i0", "faithfulness") is None


def test_binary_tpr_and_tnr_are_the_hand_counted_shares_with_intervals():
    metric = "faithfulness"
    humans = [1, 1, 1, 1, 0, 0, 0, 1, 0, 1]
    judged = [1, 1, 0, 1, 1, 0, 0, 1, 1, 1]  # TPR = 5 / 6, TNR = 2 / 4; two false positives: lenient-leaning
    items = labelled_items(10, metric)
    labels = []
    for item, label in zip(items, humans):
        labels.append(event_record(item, scale_for(metric), "ann", "label", label))
    from judges.labels.schema import LabelledSet, parse_item

    labelled = LabelledSet("t", tuple(parse_item(r, path="t", line=n) for n, r in enumerate(labels, 1)))
    predictions = Predictions(
        {(f"i{k}", None): Prediction(f"i{k}", VerdictState.GRADE, float(v)) for k, v in enumerate(judged)}
    )
    result = measure(labelled, predictions, AgreementSettings(resamples=200))
    assert result.errors is not None and result.ceiling_errors is None
    tnr, tpr = result.errors.recall
    assert tnr.statistic.startswith("tnr") and tnr.value == pytest.approx(2 / 4) and tnr.n == 4
    assert tpr.statistic.startswith("tpr") and tpr.value == pytest.approx(5 / 6) and tpr.n == 6
    assert tpr.ci is not None and tpr.ci[0] <= 5 / 6 <= tpr.ci[1]
    assert result.errors.matrix == [[2, 1], [2, 5]]
    from sklearn.metrics import confusion_matrix

    assert np.array_equal(np.array(result.errors.matrix), confusion_matrix(judged, humans))
    assert result.errors.signed_difference.value == pytest.approx(0.1)


def test_a_strict_judge_and_the_labels_file_loads_like_any_labelled_set(tmp_path):
    metric = "answer_relevancy"
    items = labelled_items(10, metric)
    labels = write_labels(tmp_path / "labels.jsonl", items, metric, {"ann-1": [lab + 1 for lab in FIRST]})
    labelled = open_labels(str(labels))
    predictions = Predictions(
        {(f"i{k}", None): Prediction(f"i{k}", VerdictState.GRADE, float(v)) for k, v in enumerate(FIRST)}
    )
    result = measure(labelled, predictions, AgreementSettings(resamples=200))
    assert result.errors is not None and result.errors.leaning == "strict"
    assert result.errors.signed_difference.value == pytest.approx(-1.0) and result.errors.weighted == []


def test_the_leaderboard_reads_a_labels_file_like_any_labelled_set(tmp_path):
    from judges.leaderboard.config import load_config
    from judges.leaderboard.label_entries import labelled_subset

    metric = "faithfulness"
    items = labelled_items(4, metric)
    path = write_labels(tmp_path / "labels.jsonl", items, metric, {"ann": [1, 0, 1, 1]})
    append_event(path, event_record(items[1], scale_for(metric), "ann", "label", 1))  # a corrected label
    append_event(path, event_record(items[3], scale_for(metric), "ann", "null"))  # changed to null: left out
    config = tmp_path / "board.toml"
    config.write_text(
        '[[candidates]]\nname = "top"\nkind = "baseline"\nbaseline = "always-top"\n\n'
        '[[evaluations]]\nkind = "labels"\nsource = "labels.jsonl"\nmetric = "faithfulness"\n'
    )
    evaluation = load_config(config).evaluations[0]
    subset = labelled_subset(evaluation)
    assert [(i.id, i.label) for i in subset.items] == [("i0", 1.0), ("i2", 1.0), ("i1", 1.0)]
