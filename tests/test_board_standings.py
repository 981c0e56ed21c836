"""Rank intervals and tie groups: every candidate on the same resamples, clusters by Holm-corrected paired tests."""

import numpy as np
from test_label_boards import BASELINES, board, candidate, evaluation, rows, write_labels, write_predictions

from judges.leaderboard.entries import Entry
from judges.leaderboard.standings import assign_standings, holm, rank_standings


def entry(name: str, values: np.ndarray, kind: str = "llm") -> Entry:
    item_values = {f"t{n}": float(v) for n, v in enumerate(values)}
    mean = float(np.mean(values))
    return Entry(
        name,
        kind,
        None,
        None,
        None,
        "unit_tests",
        "total",
        "pass_rate",
        mean,
        None,
        None,
        len(values),
        item_values=item_values,
    )


def test_holm_adjusts_the_kth_smallest_by_m_minus_k_plus_one_and_stays_monotone():
    adjusted = holm(np.array([0.01, 0.04, 0.03, 0.005]))
    # sorted: 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> kept monotone at 0.06
    assert np.allclose(adjusted, [0.03, 0.06, 0.06, 0.02])


def test_two_candidates_built_alike_share_a_group_and_one_built_clearly_better_stands_alone():
    rng = np.random.default_rng(7)
    n = 400
    judges = {
        "alike-1": rng.random(n) < 0.70,
        "alike-2": rng.random(n) < 0.70,
        "better": rng.random(n) < 0.95,
        "worse": rng.random(n) < 0.30,
    }
    found = rank_standings([entry(name, values.astype(float)) for name, values in judges.items()])
    assert found["better"].cluster == 1 and found["better"].rank_interval == (1, 1) and found["better"].rank == 1
    assert found["alike-1"].cluster == found["alike-2"].cluster == 2
    assert {found["alike-1"].rank, found["alike-2"].rank} == {2, 3}
    assert found["alike-1"].rank_interval == found["alike-2"].rank_interval == (2, 3)
    assert found["worse"].cluster == 3 and found["worse"].rank_interval == (4, 4)


def test_baselines_are_not_ranked_and_candidates_on_other_items_get_no_standing():
    rng = np.random.default_rng(1)
    entries = [
        entry("a", rng.random(50) < 0.5),
        entry("b", rng.random(50) < 0.6),
        entry("c", rng.random(50) < 0.5, "baseline"),
    ]
    assign_standings(entries)
    assert entries[2].rank is None and entries[0].cluster is not None
    shorter = [entry("a", rng.random(50) < 0.5), entry("b", rng.random(40) < 0.6)]
    assert rank_standings(shorter) == {}


def test_a_labelled_board_writes_each_candidates_rank_interval_and_cluster(tmp_path):
    rng = np.random.default_rng(3)
    truth = rng.random(600) < 0.5

    def judge(accuracy):
        right = rng.random(truth.size) < accuracy
        return {f"i{n}": float(t if r else not t) for n, (t, r) in enumerate(zip(truth, right))}

    labels = write_labels(tmp_path, [float(t) for t in truth])
    text = BASELINES + evaluation(labels)
    for name, accuracy in (("alike-1", 0.75), ("alike-2", 0.75), ("better", 0.95)):
        text += candidate(name, write_predictions(tmp_path, name, judge(accuracy)))
    data = board(tmp_path, text)
    better, one, two = rows(data, "better"), rows(data, "alike-1"), rows(data, "alike-2")
    assert (better["cluster"], better["rank_interval"]) == (1, [1, 1])
    assert one["cluster"] == two["cluster"] == 2 and one["rank_interval"] == two["rank_interval"] == [2, 3]
    assert rows(data, "always-top")["cluster"] is None
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "rank [95%], tie group" in markdown and "| 1 [1, 1], group 1" in markdown
    from judges.viewer.pages import leaderboard_page

    page = leaderboard_page(tmp_path, "board")
    assert "rank [95%], tie group" in page and "1 [1, 1], group 1" in page and "2 [2, 3], group 2" in page


def test_a_metric_ranked_on_several_evaluations_gets_a_mean_rank_with_its_interval():
    from judges.leaderboard.standings import Standing, summary_rankings

    def standing(rank, draws):
        return Standing(rank, (min(draws), max(draws)), 1, np.array(draws, dtype=float))

    found = {
        ("set-a", "faithfulness"): {"x": standing(1, [1, 1, 2, 1]), "y": standing(2, [2, 2, 1, 2])},
        ("set-b", "faithfulness"): {
            "x": standing(2, [2, 1, 2, 2]),
            "y": standing(1, [1, 2, 1, 1]),
            "z": standing(3, [3] * 4),
        },
        ("set-c", "usefulness"): {"x": standing(1, [1] * 4), "y": standing(2, [2] * 4)},  # one evaluation: no summary
    }
    [ranking] = summary_rankings(found)
    assert ranking["metric"] == "faithfulness" and ranking["evaluations"] == ["set-a", "set-b"]
    rows = {r["candidate"]: r for r in ranking["rows"]}
    assert set(rows) == {"x", "y"}  # z was not ranked on set-a
    assert rows["x"]["mean_rank"] == rows["y"]["mean_rank"] == 1.5
    # x's mean over the resamples: 1.5, 1, 2, 1.5 -> the 2.5th and 97.5th percentiles
    assert rows["x"]["interval"] == list(np.quantile([1.5, 1.0, 2.0, 1.5], [0.025, 0.975]))
