"""A leaderboard on a judge benchmark: LLMBar's released evaluators ranked by a pairwise statistic with rank intervals
and tie groups (the real Natural set through the shared-data lookup, and a hand-made six-pair set)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from judges.errors import ConfigError
from judges.leaderboard.build import run_leaderboard
from judges.leaderboard.config import load_config

ROOT = Path(__file__).resolve().parents[1]
EVALUATION = """
[[evaluations]]
kind = "labels"
name = "bench"
source = "{source}"
format = "llmbar"
statistic = "{statistic}"
"""
CONSTANT = '\n[[candidates]]\nname = "always-first"\nkind = "baseline"\nbaseline = "always-first"\n'


def candidate(name: str, source: str) -> str:
    return f'\n[[candidates]]\nname = "{name}"\nkind = "predictions"\nsource = "{source}"\n'


def board(tmp_path: Path, text: str) -> dict[str, dict]:
    config = tmp_path / "board.toml"
    config.write_text(text, encoding="utf-8")
    entries, _, _ = run_leaderboard(load_config(config), tmp_path / "out", log=io.StringIO())
    return {e.candidate: e.to_dict() for e in entries}


def published(evaluator: str, key: str) -> float:
    """A share from LLMBar's statistics.json (`"56 / 100 = 56.0%"` -> 0.56)."""
    path = f"llmbar/Natural/evaluators/{evaluator}/statistics.json"
    from judges.labels.shared import read_shared_json

    text = read_shared_json(*path.split("/"))[key]  # type: ignore[index]
    right, _, total = text.partition(" = ")[0].partition(" / ")
    return int(right) / int(total)


def test_llmbar_natural_board_ranks_the_published_evaluators_with_their_published_figures(
    tmp_path, shared_datasets, monkeypatch
):
    monkeypatch.setenv("JUDGELAB_SHARED", str(shared_datasets))
    evaluators = ("GPT-4/Reference", "ChatGPT/CoT", "ChatGPT/Rating")
    text = EVALUATION.format(source="shared:llmbar/Natural", statistic="both_correct") + CONSTANT
    text += "".join(candidate(e, f"shared:llmbar/Natural/evaluators/{e}/result.json") for e in evaluators)
    rows = board(tmp_path, text)
    for evaluator in ("GPT-4/Reference", "ChatGPT/CoT"):  # 0.94 and 0.56 as published (correct_both)
        assert rows[evaluator]["value"] == pytest.approx(published(evaluator, "correct_both"), abs=5e-5)
        assert rows[evaluator]["figures"]["accuracy_original"] == pytest.approx(
            published(evaluator, "correct_False"), abs=5e-5
        )
        assert rows[evaluator]["figures"]["position_consistency"] == pytest.approx(
            published(evaluator, "equal"), abs=5e-5
        )
    best, middle, worst = (rows[e] for e in evaluators)
    assert (best["rank"], middle["rank"], worst["rank"]) == (1, 2, 3)
    assert best["rank_interval"] == [1, 1] and best["cluster"] == 1  # 0.94 against 0.56: clearly apart
    assert best["rank_interval"][1] < middle["rank_interval"][0] <= middle["rank_interval"][1] <= 3
    assert best["cluster"] < middle["cluster"] <= worst["cluster"]
    assert rows["always-first"]["value"] == 0.0 and rows["always-first"]["rank"] is None  # the bar, not ranked


def offline_both_right(run: Path, labels: list[int]) -> tuple[int, int]:
    """Pairs of the committed offline run whose two orders both named the labelled output, and pairs whose orders
    named the same output (or both none), counted by hand from its results.jsonl (a failed order counts wrong)."""
    right = consistent = 0
    for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        orders = record["metrics"]["pairwise_preference"].get("details", {}).get("orders", [])
        picks = [o.get("preference_of_answers", o.get("preference")) for o in orders] or [None, None]
        wanted = "A" if labels[int(record["id"])] == 1 else "B"
        right += picks == [wanted, wanted]
        consistent += picks[0] == picks[1]  # two orders without a verdict agree, as LLMBar's `equal` counts them
    return right, consistent


def test_the_committed_llmbar_board_ranks_all_27_published_results_and_the_offline_judge_by_both_orders_right():
    data = json.loads((ROOT / "results" / "llmbar" / "leaderboard.json").read_text(encoding="utf-8"))
    rows = [r for r in data["entries"] if r["kind"] == "predictions"]
    assert len(rows) == 28 and {r["statistic"] for r in rows} == {"both_correct"}
    offline = next(r for r in rows if r["candidate"] == "smollm2-135m/llmbar-vanilla")
    from judges.labels.shared import read_shared_json

    labels = [int(row["label"]) for row in read_shared_json("llmbar", "Natural", "dataset.json")]  # type: ignore[union-attr,index]
    right, consistent = offline_both_right(ROOT / "results" / "llmbar" / "runs" / "smollm2-vanilla", labels)
    assert offline["n"] == 100 and offline["value"] == pytest.approx(right / 100)
    assert offline["figures"]["position_consistency"] == pytest.approx(consistent / 100)
    assert all(r["rank"] is not None and r["rank_interval"] and r["cluster"] for r in rows)
    ranked = sorted(rows, key=lambda r: r["rank"])
    assert [r["value"] for r in ranked] == sorted((r["value"] for r in rows), reverse=True)
    assert [r["cluster"] for r in ranked] == sorted(r["cluster"] for r in rows)
    assert {r["candidate"] for r in data["entries"] if r["kind"] == "baseline"} == {"always-first", "always-tie"}


def write_set(folder: Path, labels: list[int], judges: dict[str, list[tuple[str, str]]]) -> None:
    """An LLMBar-shaped set: dataset.json and each judge's result.json (winner with the outputs as given, swapped)."""
    rows = [{"input": f"q{n}", "output_1": "x", "output_2": "y", "label": label} for n, label in enumerate(labels)]
    (folder / "set").mkdir(parents=True)
    (folder / "set" / "dataset.json").write_text(json.dumps(rows), encoding="utf-8")
    for name, orders in judges.items():
        result = [
            {**row, "results": [{"swap = False": {"winner": given}, "swap = True": {"winner": swapped}}]}
            for row, (given, swapped) in zip(rows, orders, strict=True)
        ]
        (folder / f"{name}.json").write_text(json.dumps(result), encoding="utf-8")


def test_a_six_pair_board_ranks_by_the_pairwise_statistic_with_holm_corrected_tie_groups(tmp_path):
    labels = [1, 2, 1, 2, 1, 2]
    right = [(str(label), str(label)) for label in labels]
    flipped = [(str(3 - label), str(label)) for label in labels]  # wrong with the outputs as given
    judges = {
        "good": right,  # both orders right on all six
        "mid": right[:4] + flipped[4:],  # on four
        "bad": right[:1] + flipped[1:],  # on one, the first (which mid also has right)
    }
    write_set(tmp_path, labels, judges)
    text = EVALUATION.format(source="set", statistic="both_correct") + CONSTANT
    text += "".join(candidate(name, f"{name}.json") for name in judges)
    rows = board(tmp_path, text)
    assert [rows[n]["value"] for n in judges] == pytest.approx([1.0, 4 / 6, 1 / 6])
    assert [rows[n]["rank"] for n in judges] == [1, 2, 3]
    # good - bad is never <= 0 unless a resample draws only the first pair ((1/6)^6): a new group; good - mid is
    # <= 0 on about (4/6)^6 = 9% of the resamples and mid - bad on (3/6)^6 = 1.6%, 3.1% two-sided, 6.3% after Holm
    assert [rows[n]["cluster"] for n in judges] == [1, 1, 2]
    # ranks over the resamples: mid ties good on ~9% of them (shares rank 1), bad ties mid on ~1.6% (< 2.5%)
    assert [rows[n]["rank_interval"] for n in judges] == [[1, 1], [1, 2], [3, 3]]
    assert rows["mid"]["figures"]["accuracy_mean"] == pytest.approx(10 / 12)
    assert rows["mid"]["figures"]["position_consistency"] == pytest.approx(4 / 6)
    assert rows["always-first"]["figures"]["accuracy_mean"] == pytest.approx(0.5)


def test_a_pairwise_board_takes_only_pairwise_statistics_and_names_the_fetch_for_a_missing_set(tmp_path, monkeypatch):
    write_set(tmp_path, [1, 2], {"one": [("1", "1"), ("2", "2")]})
    config = tmp_path / "board.toml"
    config.write_text(EVALUATION.format(source="set", statistic="spearman") + candidate("one", "one.json"))
    with pytest.raises(ConfigError, match=r"board.toml:7: evaluations\[0\].statistic: 'spearman' is not a pairwise"):
        load_config(config)
    monkeypatch.setenv("JUDGELAB_SHARED", str(tmp_path / "nowhere"))
    monkeypatch.setenv("JUDGELAB_DATA_HOME", str(tmp_path / "no-data"))
    text = EVALUATION.format(source="shared:llmbar/Natural", statistic="both_correct") + CONSTANT
    config.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match=r"llmbar/Natural not found .*run `judgelab data fetch llmbar`"):
        run_leaderboard(load_config(config), tmp_path / "out", log=io.StringIO())
