"""Per-question agreement: the per-group correlation averaged over groups and acc*_eq, against hand-computed values."""

import json
import math

import numpy as np

from judges.agreement.groups import Pairs, group_figures, tie_calibrated_accuracy
from judges.cli.main import main

# two questions of three answers each: human labels and judge scores
GROUPS = ["q1", "q1", "q1", "q2", "q2", "q2"]
HUMAN = np.array([1.0, 2.0, 3.0, 2.0, 2.0, 1.0])
JUDGE = np.array([1.0, 5.0, 5.0, 3.0, 4.0, 1.0])


def test_tie_calibrated_pairwise_accuracy_by_hand():
    # q1 pairs: (1<2, judge 1<5) right while eps < 4; (1<3, 1<5) right while eps < 4; (2<3, judge 5=5) always a tie: wrong
    # q2 pairs: (2=2, judge 3 vs 4) right once eps >= 1; (2>1, 3>1) right while eps < 2; (2>1, 4>1) right while eps < 3
    # eps 0: (2/3 + 2/3) / 2; eps 1: (2/3 + 3/3) / 2 = 5/6, the best; eps 2: (2/3 + 2/3) / 2
    pairs = Pairs.within(np.array([0, 0, 0, 1, 1, 1]), HUMAN, JUDGE, 2)
    accuracy, epsilon = tie_calibrated_accuracy(pairs, np.ones((1, 2)))
    assert math.isclose(accuracy[0], 5 / 6) and epsilon[0] == 1.0
    # weighting q2 three times over: (2/3 + 3 * 1) / 4 at eps 1
    accuracy, epsilon = tie_calibrated_accuracy(pairs, np.array([[1.0, 3.0]]))
    assert math.isclose(accuracy[0], (2 / 3 + 3) / 4) and epsilon[0] == 1.0


def test_per_group_correlations_are_averaged_over_groups_by_hand():
    figures, epsilon = group_figures(GROUPS, HUMAN, JUDGE, resamples=200, seed=0, confidence=0.95)
    found = {f.statistic: f.value for f in figures}
    # q1: Pearson sqrt(3)/2, Spearman (ranks 1,2,3 vs 1,2.5,2.5) 1.5/sqrt(3), tau-b 2/sqrt(6);
    # q2: Pearson 5/sqrt(28), Spearman (2.5,2.5,1 vs 2,3,1) 1.5/sqrt(3), tau-b 2/sqrt(6)
    assert math.isclose(found["group_pearson"], (math.sqrt(3) / 2 + 5 / math.sqrt(28)) / 2)
    assert math.isclose(found["group_spearman"], 1.5 / math.sqrt(3))
    assert math.isclose(found["group_kendall"], 2 / math.sqrt(6))
    assert math.isclose(found["pairwise_accuracy_tie_calibrated"], 5 / 6) and epsilon == 1.0
    assert all(f.ci is not None and f.ci[0] <= f.value <= f.ci[1] for f in figures)


def test_a_constant_group_is_left_out_of_the_correlations_but_not_of_the_pairs():
    groups = [*GROUPS, "q3", "q3"]
    human, judge = np.r_[HUMAN, 2.0, 2.0], np.r_[JUDGE, 1.0, 4.0]  # people tie, the judge does not (gap 3)
    figures, epsilon = group_figures(groups, human, judge, resamples=100, seed=0, confidence=0.95)
    found = {f.statistic: f for f in figures}
    assert math.isclose(found["group_pearson"].value, (math.sqrt(3) / 2 + 5 / math.sqrt(28)) / 2)
    assert "mean over 2 of 3 groups" in found["group_pearson"].note
    # eps 1: (2/3 + 1 + 0) / 3 = 5/9; eps 2: (2/3 + 2/3 + 0) / 3; eps 3: q3's tie is right, q2 keeps one pair:
    # (2/3 + 1/3 + 1) / 3 = 2/3, the best; eps 4: (0 + 1/3 + 1) / 3
    assert math.isclose(found["pairwise_accuracy_tie_calibrated"].value, 2 / 3) and epsilon == 3.0


def test_agreement_with_a_group_column_reports_per_group_figures(tmp_path):
    rows = [
        {"id": f"a{n}", "question_id": g, "label": h, "answer": f"answer {n}"}
        for n, (g, h) in enumerate(zip(GROUPS, HUMAN, strict=True))
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    predictions = tmp_path / "judge.jsonl"
    predictions.write_text("".join(json.dumps({"id": f"a{n}", "score": s}) + "\n" for n, s in enumerate(JUDGE)))
    args = ["agreement", "--labels", str(labels), "--predictions", str(predictions), "--label-type", "ordinal"]
    args += ["--scale", "1,3", "--metric", "quality", "--columns", "group=question_id", "--out", str(tmp_path / "a")]
    assert main(args) == 0
    result = json.loads((tmp_path / "a" / "agreement.json").read_text())["metrics"]["quality"]
    per_group = {f["statistic"]: f["value"] for f in result["per_group"]["figures"]}
    assert math.isclose(per_group["pairwise_accuracy_tie_calibrated"], 5 / 6)
    assert result["per_group"]["tie_threshold"] == 1.0 and result["per_group"]["groups"] == 2
    assert "Items in 2 groups" in (tmp_path / "a" / "agreement.md").read_text()


def test_a_board_ranks_by_the_tie_calibrated_pairwise_accuracy_within_groups(tmp_path):
    rng = np.random.default_rng(5)
    human = rng.integers(1, 6, size=300).astype(float)
    groups = [f"q{n // 3}" for n in range(300)]  # a hundred questions of three answers
    rows = [{"id": f"a{n}", "question_id": g, "label": h} for n, (g, h) in enumerate(zip(groups, human, strict=True))]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = ""
    for name, noise in (("close", 0.3), ("far", 3.0)):
        scores = human + rng.normal(0, noise, human.size)
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": f"a{n}", "score": float(s)}) + "\n" for n, s in enumerate(scores)))
        text += f'[[candidates]]\nname = "{name}"\nkind = "predictions"\nsource = "{path}"\n\n'
    text += (
        f'[[evaluations]]\nkind = "labels"\nsource = "{labels}"\nname = "qa"\nmetric = "quality"\n'
        'label_type = "ordinal"\nscale = [1, 5]\ncolumns = "group=question_id"\n'
        'statistic = "pairwise_accuracy_tie_calibrated"\nresamples = 200\n'
    )
    config = tmp_path / "board.toml"
    config.write_text(text)
    assert main(["leaderboard", str(config), "--out", str(tmp_path / "board")]) == 0
    data = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    [pick] = data["picks"]
    assert pick["best"] == "close" and pick["statistic"].startswith("pairwise_accuracy_tie_calibrated")
