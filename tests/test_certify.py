"""`judgelab validate --labels`: exact one-sided lower bounds, exit codes, the labels that would decide a missed bar,
labels reused from a tuning or a calibration named, and the two modes kept apart."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest
from stub import stub_server

from judges.agreement.certification import exact_lower_bound, rate_check
from judges.cli.cascade_cmd import labels_sha256
from judges.cli.main import main
from judges.labels.label_sets import open_labels
from judges.runs.run import Run

ROOT = Path(__file__).resolve().parent.parent


def write_labels(path: Path, labels: dict[str, int]) -> Path:
    rows = [
        {"id": i, "metric": "faithfulness", "label": v, "label_type": "binary", "scale": [0, 1], "actual_output": i}
        for i, v in labels.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_predictions(path: Path, scores: dict[str, float]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "score": s}) + "\n" for i, s in scores.items()))
    return path


def halves(tmp_path: Path, n: int, wrong: set[int] = frozenset()) -> tuple[Path, Path]:
    """n labelled items, half of each class, and a 0/1 judge right on all but the `wrong` ones."""
    labels = {f"i{k}": k % 2 for k in range(n)}
    scores = {i: float(1 - v if k in wrong else v) for k, (i, v) in enumerate(labels.items())}
    return write_labels(tmp_path / "labels.jsonl", labels), write_predictions(tmp_path / "judge.jsonl", scores)


def certify(labels: Path, predictions: Path | str, out: Path, *extra: str) -> int:
    return main(["validate", "--labels", str(labels), "--predictions", str(predictions), "--out", str(out), *extra])


@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (0, 7), (3, 7), (7, 7), (9, 10), (17, 20), (48, 50)])
def test_the_lower_bound_is_scipys_one_sided_exact_clopper_pearson_bound(k, n):
    expected = binomtest(k, n, alternative="greater").proportion_ci(confidence_level=0.95, method="exact").low
    assert exact_lower_bound(k, n) == pytest.approx(expected, abs=1e-9)


def test_the_labels_that_would_decide_a_perfect_recall_match_the_closed_form():
    # all 10 positives right: the bound 0.05 ** (1 / n) reaches 0.9 first at n = ceil(ln 0.05 / ln 0.9) = 29
    positives = math.ceil(math.log(0.05) / math.log(0.9))
    assert positives == 29 and 0.05 ** (1 / 28) < 0.9 <= 0.05 ** (1 / 29)
    check = rate_check("tpr", 10, 10, 0.9, 20, "none")  # positives are half of the 20 labels
    assert not check.passed and check.labels_needed == 2 * positives and check.more_labels() == 58 - 20


def test_the_labels_that_would_decide_a_recall_of_nine_tenths_are_the_first_whole_count_reaching_the_bar():
    check = rate_check("tpr", 9, 10, 0.8, 10, "none")  # every label a positive
    # at 0.9 observed, 50 positives (45 right) reach 0.8 and 40 (36 right) do not
    assert exact_lower_bound(45, 50) >= 0.8 > exact_lower_bound(36, 40)
    assert check.labels_needed is not None and 41 <= check.labels_needed <= 50
    assert exact_lower_bound(0.9 * check.labels_needed, check.labels_needed) >= 0.8
    assert exact_lower_bound(0.9 * (check.labels_needed - 1), check.labels_needed - 1) < 0.8


def test_a_judge_right_on_100_items_is_certified_at_0_9_and_the_record_holds_the_labels_hash(tmp_path, capsys):
    labels, judge = halves(tmp_path, 100)  # 50 of each class, all right: bound 0.05 ** (1 / 50) = 0.942
    assert certify(labels, judge, tmp_path / "out", "--min-recall", "0.9") == 0
    record = json.loads((tmp_path / "out" / "certification.json").read_text())
    assert record["certified"] is True
    assert [c["lower_bound"] for c in record["checks"]] == [pytest.approx(0.05 ** (1 / 50))] * 2
    assert record["labels"]["sha256"] == labels_sha256(open_labels(str(labels)).for_metric("faithfulness"))
    assert record["reused"] == []
    assert capsys.readouterr().out.splitlines()[-1].startswith("CERTIFIED: 2/2 bounds")


def test_a_judge_one_bound_short_exits_1_and_says_how_many_more_labels(tmp_path, capsys):
    labels, judge = halves(tmp_path, 40)  # 20 of each class, all right: bound 0.05 ** (1 / 20) = 0.861 < 0.9
    assert certify(labels, judge, tmp_path / "out", "--min-recall", "0.9") == 1
    out = capsys.readouterr().out
    # 20 of a class cannot reach 0.9 even when all are right (29 can): undecided, not a miss, and still exit 1
    assert (
        "UNDECIDED sensitivity (tpr) >= 0.9: observed 1.000 on 20; a bar of 0.9 needs at least 29 labels of each "
        "class; these have 20 labelled 1" in out
    )
    assert "UNDECIDED: 0/2 bounds reach their bars; about 18 more labels" in out
    assert json.loads((tmp_path / "out" / "certification.json").read_text())["verdict"] == "undecided"


def test_a_statistic_bar_on_other_labels_uses_the_bootstrap_lower_end(tmp_path, capsys):
    labels, judge = halves(tmp_path, 40, wrong={0, 1, 2, 3})
    assert certify(labels, judge, tmp_path / "out", "--min", "cohen_kappa=0.99") == 1
    [check] = json.loads((tmp_path / "out" / "certification.json").read_text())["checks"]
    assert check["statistic"] == "cohen_kappa" and check["value"] == pytest.approx(0.8)
    assert check["reason"] == "no number of labels: the observed value is not above the bar"
    assert main(["validate", "--labels", str(labels), "--predictions", str(judge), "--min", "kappa=0.5"]) == 2
    assert "no such statistic for these labels" in capsys.readouterr().err


def test_an_always_wrong_judge_of_a_stub_endpoint_exits_1_and_says_no_number_of_labels_decides(tmp_path, capsys):
    with stub_server(latency_ms=1) as base:
        command = ["evaluate", str(ROOT / "examples" / "samples.jsonl"), "--judge", "openai/stub", "--api-base", base]
        assert main([*command, "--out", str(tmp_path / "run"), "--cache", str(tmp_path / "c.db"), "--quiet"]) == 0
    grades = {
        r.id: r.metrics["faithfulness"].verdict.grade
        for r in Run.load(tmp_path / "run").iter_records()
        if r.metrics["faithfulness"].verdict.grade is not None
    }
    assert len(grades) == 5  # the stub's faithfulness grades of the shipped samples
    labels = write_labels(tmp_path / "labels.jsonl", {i: int(1 - g) for i, g in grades.items()})  # always wrong
    capsys.readouterr()
    assert certify(labels, tmp_path / "run", tmp_path / "out", "--min-recall", "0.9") == 1
    out = capsys.readouterr().out
    misses = [line for line in out.splitlines() if line.startswith(("FAIL ", "UNDECIDED "))]
    assert len(misses) == 2 and all(
        ": undefined on these labels (no item labelled" in m or "observed 0.000 on" in m for m in misses
    )
    # 0 of 5 right: the 95% upper bound 1 - 0.05 ** (1 / 5) = 0.451 is below 0.9 already: decided, not undecided
    assert "decided now: the 95% upper bound 0.451 is below the bar; no more labels would certify it" in out
    assert "no number of labels would decide every bar" in out.splitlines()[-1]  # the other class has no label


def test_a_rate_below_the_bar_but_not_yet_excluded_says_how_many_labels_would_show_the_miss():
    from scipy.stats import beta

    from judges.agreement.certification import rate_check

    check = rate_check("sensitivity", 17, 20, 0.9, rows=40, undefined="-")  # 0.85 observed, upper bound above 0.9
    assert beta.ppf(0.95, 18, 3) > 0.9 and not check.passed
    # at the observed rate, the smallest n whose exact upper bound is at most 0.9 (scanned), in label rows of both classes
    n = next(n for n in range(20, 2000) if beta.ppf(0.95, 0.85 * n + 1, 0.15 * n) <= 0.9)
    assert check.labels_needed == -(-n * 40 // 20) and check.more_labels() == check.labels_needed - 40
    assert "more labels" in check.describe() and "would decide it" in check.describe()


def test_labels_a_tuning_or_a_calibration_chose_are_named_as_reused(tmp_path, capsys):
    labels, judge = halves(tmp_path, 100)
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    (tuned / "manifest.json").write_text(json.dumps({"labels": {"spec": str(labels), "name": "labels"}}))
    calibrated = tmp_path / "cascade"
    command = ["cascade", "calibrate", "--labels", str(labels), "--predictions", f"j={judge}"]
    assert main([*command, "--target", "0.85", "--out", str(calibrated)]) == 0
    (tmp_path / "other").mkdir()
    other, other_judge = halves(tmp_path / "other", 30)
    elsewhere = tmp_path / "elsewhere"
    command = ["cascade", "calibrate", "--labels", str(other), "--predictions", f"j={other_judge}"]
    assert main([*command, "--target", "0.5", "--min-kept", "5", "--out", str(elsewhere)]) == 0
    capsys.readouterr()
    chosen = [
        "--chosen-by",
        str(tuned),
        "--chosen-by",
        str(calibrated / "calibration.json"),
        "--chosen-by",
        str(elsewhere),
    ]
    assert certify(labels, judge, tmp_path / "out", "--min-recall", "0.9", *chosen) == 0
    reused = json.loads((tmp_path / "out" / "certification.json").read_text())["reused"]
    assert [(r["kind"], r["reused"], r["matched_on"]) for r in reused] == [
        ("tuned prompts", True, "spec"),
        ("cascade calibration", True, "sha256"),
        ("cascade calibration", False, None),
    ]
    out = capsys.readouterr().out
    assert f"reused: tuned prompts {tuned} (optimistic: these labels chose the prompts)" in out
    assert "optimistic: these labels chose the cascade's thresholds" in out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--labels", "x.jsonl", "--predictions", "p.jsonl", "--baseline", "run"], "drop --baseline"),
        (["--labels", "x.jsonl", "--predictions", "p.jsonl", "--model", "openai/x"], "drop --model"),
        (["--labels", "x.jsonl", "--min-recall", "0.8"], "--labels needs --predictions"),
        (["--min-recall", "0.8", "--min", "total=0.5"], "--min-recall: only with --labels"),
        (["--predictions", "p.jsonl", "--min", "total=0.5"], "--predictions: only with --labels"),
    ],
)
def test_flags_of_the_two_modes_mixed_are_refused_in_one_line(extra, message, capsys):
    assert main(["validate", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "bar, message",
    [
        ("cohen_kappa=-5", "--min cohen_kappa=-5: cohen_kappa lies between -1 and 1 (higher is better)"),
        ("cohen_kappa=-inf", "--min cohen_kappa=-inf: cohen_kappa lies between -1 and 1"),
        ("cohen_kappa=nan", "--min cohen_kappa=nan: cohen_kappa lies between -1 and 1"),
        ("f1=1.5", "--min f1=1.5: f1 lies between 0 and 1"),
        ("balanced_accuracy=-0.1", "--min balanced_accuracy=-0.1: balanced_accuracy lies between 0 and 1"),
    ],
)
def test_a_bar_outside_its_statistics_range_is_one_line_exit_2(bar, message, tmp_path, capsys):
    labels, judge = halves(tmp_path, 40)
    assert certify(labels, judge, tmp_path / "out", "--min", bar) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err and not (tmp_path / "out").exists()


def test_one_labelled_item_certifies_nothing(tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", {"a": 1})
    judge = write_predictions(tmp_path / "judge.jsonl", {"a": 1.0})
    assert certify(labels, judge, tmp_path / "out", "--min", "f1=0.5") == 1
    out = capsys.readouterr().out
    assert "CERTIFIED: 1/1" not in out and out.splitlines()[-1].startswith("UNDECIDED: 0/1 bounds reach their bars")
    assert "UNDECIDED f1 >= 0.5:" in out and "(no item labelled 0)" in out
    record = json.loads((tmp_path / "out" / "certification.json").read_text())
    assert record["certified"] is False and record["verdict"] == "undecided"


def test_balanced_accuracy_on_labels_of_one_class_is_undecided(tmp_path, capsys):
    labels = write_labels(tmp_path / "labels.jsonl", {f"i{k}": 1 for k in range(60)})
    judge = write_predictions(tmp_path / "judge.jsonl", {f"i{k}": 1.0 for k in range(60)})
    assert certify(labels, judge, tmp_path / "out", "--min", "balanced_accuracy=0.6") == 1
    [check] = json.loads((tmp_path / "out" / "certification.json").read_text())["checks"]
    assert check["passed"] is False and "one class (no item labelled 0)" in check["undecided"]


def test_the_fewest_labels_a_bar_needs_is_where_a_perfect_record_reaches_it():
    from judges.agreement.certification import FEWEST_PER_CLASS, fewest_labels

    assert fewest_labels(0.9, 0.0) == 29 and 0.05 ** (1 / 28) < 0.9 <= 0.05 ** (1 / 29)
    assert fewest_labels(0.95, 0.0) == 59  # ln 0.05 / ln 0.95 = 58.4
    assert fewest_labels(0.5, 0.0) == FEWEST_PER_CLASS == 10  # 5 would reach 0.5; the floor is 10
    assert fewest_labels(0.6, -1.0) == 14  # kappa 0.6 read as the rate 0.8: ln 0.05 / ln 0.8 = 13.4
    assert fewest_labels(1.0, 0.0) is None
