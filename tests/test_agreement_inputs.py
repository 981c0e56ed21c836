"""`judgelab agreement` inputs: labels without any text, and judge scores that are not grades refused with one line
(file, line, field; exit 2) before any figure, while a null stays a null verdict."""

from __future__ import annotations

import json

import pytest
from conftest import write_jsonl
from scipy import stats

from judges.agreement.predictions import score_bounds
from judges.cli.main import main

LABELS = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.65, 0.5]
SCORES = [0.2, 0.3, 0.5, 0.7, 0.95, 0.1, 0.6, 0.4]


def _labels_without_text(tmp_path):
    rows = [
        {"id": f"x{k}", "metric": "faithfulness", "label": v, "label_type": "continuous", "scale": [0, 1]}
        for k, v in enumerate(LABELS)
    ]
    return write_jsonl(tmp_path / "labels.jsonl", rows)


def _run(tmp_path, labels, predictions, *extra):
    out = tmp_path / "out"
    code = main(
        ["agreement", "--labels", str(labels), "--predictions", str(predictions), "--out", str(out)]
        + ["--resamples", "100", *extra]
    )
    return code, out


def _judge(out, metric="faithfulness"):
    data = json.loads((out / "agreement.json").read_text())["metrics"][metric]
    return data, {f["statistic"]: f for f in data["judge"]}


def test_labelled_items_with_only_id_and_label_are_enough(tmp_path):
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": f"x{k}", "score": s} for k, s in enumerate(SCORES)])
    code, out = _run(tmp_path, _labels_without_text(tmp_path), preds)
    assert code == 0
    data, judge = _judge(out)
    assert data["n_items"] == 8 and judge["pearson"]["value"] == pytest.approx(stats.pearsonr(LABELS, SCORES)[0])


def test_columns_need_only_the_label_and_the_id(tmp_path):
    table = tmp_path / "export.csv"
    table.write_text("qid,human\n" + "".join(f"q{k},{v}\n" for k, v in enumerate(LABELS)), encoding="utf-8")
    preds = write_jsonl(tmp_path / "p.jsonl", [{"qid": f"q{k}", "p": s} for k, s in enumerate(SCORES)])
    code, out = _run(
        tmp_path,
        table,
        preds,
        "--columns",
        "id=qid,label=human",
        "--metric",
        "faithfulness",
        "--label-type",
        "continuous",
        "--scale",
        "0,1",
        "--id-field",
        "qid",
        "--score-field",
        "p",
    )
    assert code == 0
    _, judge = _judge(out)
    assert judge["spearman"]["value"] == pytest.approx(stats.spearmanr(LABELS, SCORES)[0])
    assert judge["spearman"]["n"] == 8


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "x3", "score": Infinity}', "expected a finite number or null, got inf"),
        ('{"id": "x3", "score": -Infinity}', "expected a finite number or null, got -inf"),
        ('{"id": "x3", "score": NaN}', "expected a finite number or null, got nan"),
        ('{"id": "x3", "score": "inf"}', "expected a finite number or null, got inf"),
        ('{"id": "x3", "score": true}', "expected a number or null, got the boolean true"),
        ('{"id": "x3", "score": 1e308}', "score 1e+308 lies far outside the label scale"),
        ('{"id": "x3", "score": -2000000}', "score -2e+06 lies far outside the label scale"),
    ],
)
def test_a_score_that_is_not_a_grade_is_one_line_and_exit_2_before_any_figure(tmp_path, capsys, line, message):
    rows = [json.dumps({"id": f"x{k}", "score": s}) for k, s in enumerate(SCORES)]
    rows[3] = line
    preds = tmp_path / "p.jsonl"
    preds.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out = _run(tmp_path, _labels_without_text(tmp_path), preds)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and not out.exists()
    assert err.startswith(f"judgelab: error: {preds}:4: {message}") and "(field 'score')" in err


def test_the_far_off_rule_is_a_million_scale_widths_and_a_null_stays_a_null(tmp_path, capsys):
    assert score_bounds((1.0, 5.0)) == (1.0 - 4e6, 5.0 + 4e6)
    # a judge on its own scale (a percentage against labels on [0, 1]) is far from the label scale but fine
    rows = [{"id": f"x{k}", "score": 100 * s} for k, s in enumerate(SCORES)]
    rows[2]["score"] = None
    code, out = _run(tmp_path, _labels_without_text(tmp_path), write_jsonl(tmp_path / "p.jsonl", rows))
    assert code == 0
    data, judge = _judge(out)
    assert data["outcomes"]["null"] == 1 and data["outcomes"]["excluded"] == 1 and judge["pearson"]["n"] == 7
    assert judge["krippendorff_alpha"]["value"] is None  # not on the label scale
