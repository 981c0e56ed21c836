"""Rank intervals and tie groups for the system-aware and per-question figures a labelled board ranks by."""

import json
from pathlib import Path

import numpy as np
from test_label_boards import board, candidate, evaluation, rows, write_predictions

RANDOM = '[[candidates]]\nname = "random"\nkind = "baseline"\nbaseline = "random"\n\n'


def write_system_labels(folder: Path, labels: np.ndarray, systems: np.ndarray, label_type: str) -> Path:
    path = folder / "labels.jsonl"
    with path.open("w") as handle:
        for n, (label, system) in enumerate(zip(labels, systems, strict=True)):
            record = {"id": f"i{n}", "metric": "faithfulness", "label": float(label), "label_type": label_type}
            handle.write(json.dumps({**record, "scale": [0, 1], "system": f"system-{system}"}) + "\n")
    return path


def judges_board(folder: Path, labels: Path, scores: dict[str, np.ndarray], **keys) -> dict:
    text = RANDOM + "".join(
        candidate(name, write_predictions(folder, name, {f"i{n}": float(v) for n, v in enumerate(values)}), **keys)
        for name, values in scores.items()
    )
    return board(folder, text + evaluation(labels))


def continuous_case(rng: np.random.Generator, n: int, n_systems: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """Labels = the system's level + the answer's own quality; a judge that tracks the answer closely, two built
    alike that track it loosely, and one that only recognises the system."""
    systems = np.arange(n) % n_systems
    level = np.linspace(0.2, 0.8, n_systems)[systems]
    own = rng.uniform(-0.15, 0.15, n)
    scores = {
        "close": own + rng.normal(0, 0.02, n),
        "loose-1": own + rng.normal(0, 0.12, n),
        "loose-2": own + rng.normal(0, 0.12, n),
        "spotter": level + rng.normal(0, 0.01, n),
    }
    return level + own, systems, scores


def check_continuous(data: dict) -> None:
    found = {name: rows(data, name) for name in ("close", "loose-1", "loose-2", "spotter")}
    assert {row["statistic"] for row in found.values()} == {"partial_spearman"}
    assert (found["close"]["rank"], found["close"]["rank_interval"], found["close"]["cluster"]) == (1, [1, 1], 1)
    assert found["loose-1"]["cluster"] == found["loose-2"]["cluster"] == 2
    assert found["loose-1"]["rank_interval"] == found["loose-2"]["rank_interval"] == [2, 3]
    assert (found["spotter"]["rank_interval"], found["spotter"]["cluster"]) == ([4, 4], 3)
    assert rows(data, "random")["rank"] is None  # the baseline is the bar, not ranked


def test_a_board_on_labels_naming_systems_ranks_by_the_partial_figure_on_resamples_within_systems(tmp_path):
    labels, systems, scores = continuous_case(np.random.default_rng(3), 240, 4)
    check_continuous(judges_board(tmp_path, write_system_labels(tmp_path, labels, systems, "continuous"), scores))
    page = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "| 1 [1, 1], group 1" in page and "2 [2, 3], group 2" in page


def test_above_the_bootstrap_size_the_partial_figures_are_ranked_on_joint_draws(tmp_path):
    labels, systems, scores = continuous_case(np.random.default_rng(4), 20_400, 6)
    check_continuous(judges_board(tmp_path, write_system_labels(tmp_path, labels, systems, "continuous"), scores))


def binary_case(rng: np.random.Generator, n: int, n_systems: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """Binary labels whose rate differs by system; judges right on 95%, twice 75% and 60% of the items."""
    systems = np.arange(n) % n_systems
    truth = (rng.random(n) < np.linspace(0.3, 0.7, n_systems)[systems]).astype(int)
    scores = {}
    for name, right in (("sharp", 0.95), ("fair-1", 0.75), ("fair-2", 0.75), ("poor", 0.6)):
        scores[name] = np.where(rng.random(n) < right, truth, 1 - truth).astype(float)
    return truth, systems, scores


def check_binary(data: dict) -> None:
    found = {name: rows(data, name) for name in ("sharp", "fair-1", "fair-2", "poor")}
    assert {row["statistic"] for row in found.values()} == {"balanced_accuracy_system_macro"}
    assert (found["sharp"]["rank_interval"], found["sharp"]["cluster"]) == ([1, 1], 1)
    assert found["fair-1"]["cluster"] == found["fair-2"]["cluster"] == 2
    assert found["fair-1"]["rank_interval"] == found["fair-2"]["rank_interval"] == [2, 3]
    assert (found["poor"]["rank_interval"], found["poor"]["cluster"]) == ([4, 4], 3)


def test_binary_labels_naming_systems_rank_by_the_macro_balanced_accuracy_at_any_size(tmp_path):
    truth, systems, scores = binary_case(np.random.default_rng(5), 600, 3)
    check_binary(judges_board(tmp_path, write_system_labels(tmp_path, truth, systems, "binary"), scores))
    large = tmp_path / "large"
    large.mkdir()
    truth, systems, scores = binary_case(np.random.default_rng(6), 20_700, 9)
    check_binary(judges_board(large, write_system_labels(large, truth, systems, "binary"), scores))


def test_a_grouped_board_ranks_by_the_mean_per_question_spearman_with_ranks_and_tie_groups(tmp_path):
    """Answers sharing a question (`columns = "group=..."`): the board ranks by group_spearman (the per-question
    figure the README names), not the plain Spearman, and gives every candidate its rank interval and tie group."""
    rng = np.random.default_rng(8)
    n = 600
    question = np.arange(n) // 4  # 150 questions of four answers
    difficulty = rng.normal(0, 1, n // 4)[question]  # questions differ: a judge seeing only that scores plainly
    own = rng.normal(0, 1, n)
    human = difficulty + own
    scores = {
        "within": own + rng.normal(0, 0.2, n),
        "alike-1": own + rng.normal(0, 1.0, n),
        "alike-2": own + rng.normal(0, 1.0, n),
        "question-only": difficulty + rng.normal(0, 0.05, n),
    }
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"id": f"i{k}", "question_id": f"q{question[k]}", "label": human[k]}) + "\n" for k in range(n)
        )
    )
    keys = {"metric": "quality", "label_type": "continuous", "scale": [-10, 10], "columns": "group=question_id"}
    text = RANDOM + "".join(
        candidate(name, write_predictions(tmp_path, name, {f"i{k}": float(v) for k, v in enumerate(values)}))
        for name, values in scores.items()
    )
    data = board(tmp_path, text + evaluation(labels, **keys))
    found = {name: rows(data, name) for name in scores}
    assert {row["statistic"] for row in found.values()} == {"group_spearman"}
    assert found["question-only"]["plain_statistic"] == "spearman"
    assert found["question-only"]["plain_value"] > found["alike-1"]["plain_value"]  # plainly it would beat them
    assert (found["within"]["rank_interval"], found["within"]["cluster"]) == ([1, 1], 1)
    assert found["alike-1"]["cluster"] == found["alike-2"]["cluster"] == 2
    assert found["alike-1"]["rank_interval"] == found["alike-2"]["rank_interval"] == [2, 3]
    assert (found["question-only"]["rank_interval"], found["question-only"]["cluster"]) == ([4, 4], 3)
    assert data["picks"][0]["best"] == "within"
