"""Boards on RewardBench 2 (reward models ranked by best of n) and JudgeBench (judges ranked by the vote), on small
files in the released shapes: values by hand, rank intervals and tie groups from the board's machinery."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from judges.errors import ConfigError
from judges.leaderboard.build import run_leaderboard
from judges.leaderboard.config import load_config


def board(tmp_path: Path, text: str) -> dict[str, dict[str, Any]]:
    config = tmp_path / "board.toml"
    config.write_text(text, encoding="utf-8")
    entries, _, _ = run_leaderboard(load_config(config), tmp_path / "out", log=io.StringIO())
    return {e.candidate: e.to_dict() for e in entries}


def evaluation(source: str, fmt: str, statistic: str | None = None) -> str:
    text = f'[[evaluations]]\nkind = "labels"\nname = "bench"\nsource = "{source}"\nformat = "{fmt}"\n'
    return text + (f'statistic = "{statistic}"\n' if statistic else "")


def candidate(name: str, source: str) -> str:
    return f'\n[[candidates]]\nname = "{name}"\nkind = "predictions"\nsource = "{source}"\n'


BASELINE = '\n[[candidates]]\nname = "always-first"\nkind = "baseline"\nbaseline = "always-first"\n'


def rewardbench_set(tmp_path: Path, n: int) -> list[dict[str, Any]]:
    """n prompts, half Math and half Focus, one chosen and three rejected answers each (the released fields)."""
    rows = [
        {
            "id": str(i),
            "prompt": f"p{i}",
            "chosen": ["c"],
            "rejected": ["r1", "r2", "r3"],
            "num_correct": 1,
            "num_incorrect": 3,
            "total_completions": 4,
            "models": ["m"] * 4,
            "subset": "Math" if i < n // 2 else "Focus",
        }
        for i in range(n)
    ]
    (tmp_path / "rb2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def released_scores(path: Path, rows: list[dict[str, Any]], right: set[int], model: str) -> None:
    """A model's scores as allenai/reward-bench-2-results releases them: one object of columns, each answer's score
    a one-element list; the chosen answer tops the prompts in `right`, a rejected one the others."""
    scores = [[[2.0], [1.0], [0.0], [0.5]] if i in right else [[0.0], [3.0], [1.0], [0.5]] for i in range(len(rows))]
    data = {
        "id": [r["id"] for r in rows],
        "subset": [r["subset"] for r in rows],
        "scores": scores,
        "results": [1 if i in right else 0 for i in range(len(rows))],
        "num_correct": [1] * len(rows),
        "text": [["c", "r1", "r2", "r3"]] * len(rows),
        "model": model,
        "model_type": "Seq. Classifier",
        "chat_template": "tokenizer",
    }
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_rewardbench_board_ranks_reward_models_by_best_of_n_with_rank_intervals_and_tie_groups(tmp_path):
    rows = rewardbench_set(tmp_path, 20)  # Math: prompts 0-9, Focus: 10-19
    released_scores(tmp_path / "good.json", rows, set(range(20)), "good")
    released_scores(tmp_path / "mid.json", rows, set(range(8)) | set(range(10, 16)), "mid")  # Math 8/10, Focus 6/10
    released_scores(tmp_path / "bad.json", rows, {0, 10}, "bad")  # 1/10 each
    text = evaluation("rb2.jsonl", "rewardbench") + BASELINE
    text += "".join(candidate(name, f"{name}.json") for name in ("good", "mid", "bad"))
    found = board(tmp_path, text)
    assert "always-first" not in found  # a constant pair judge gives no reward scores
    assert [found[n]["statistic"] for n in ("good", "mid", "bad")] == ["best_of_n"] * 3
    assert [found[n]["value"] for n in ("good", "mid", "bad")] == pytest.approx([1.0, 0.7, 0.1])
    assert found["mid"]["figures"]["subset:Math"] == pytest.approx(0.8)
    assert found["mid"]["figures"]["subset:Focus"] == pytest.approx(0.6)
    assert [found[n]["rank"] for n in ("good", "mid", "bad")] == [1, 2, 3]
    for name in ("good", "mid", "bad"):
        low, high = found[name]["rank_interval"]
        assert low <= found[name]["rank"] <= high
        assert found[name]["ci_low"] <= found[name]["value"] <= found[name]["ci_high"]
    # good - mid is 0 only on resamples drawing none of mid's six misses ((14/20)^20 < 0.1%): apart, as mid from bad
    assert [found[n]["cluster"] for n in ("good", "mid", "bad")] == [1, 2, 3]
    assert found["bad"]["rank_interval"] == [3, 3]


def test_a_rewardbench_prompt_without_scores_scores_zero_and_shows_as_the_failure_rate(tmp_path):
    rows = rewardbench_set(tmp_path, 4)
    (tmp_path / "part.jsonl").write_text(
        "".join(json.dumps({"id": str(i), "scores": [1.0, 0.0, 0.0, 0.0]}) + "\n" for i in range(3)), encoding="utf-8"
    )
    found = board(tmp_path, evaluation("rb2.jsonl", "rewardbench", "best_of_n") + candidate("part", "part.jsonl"))
    assert found["part"]["value"] == pytest.approx((1.0 + 0.5) / 2)  # Math 2/2, Focus 1/2
    assert (
        found["part"]["failure_rate"] == pytest.approx(1 / 4)
        and "1 of 4 prompts without scores" in found["part"]["note"]
    )
    assert len(rows) == 4


def judgebench_files(tmp_path: Path) -> None:
    """Six pairs, and three judges' outputs (first judgment as given, the second with the responses swapped)."""
    labels = ["A>B", "B>A"] * 3
    pairs = [{"pair_id": f"p{i}", "source": "livebench-math", "label": lab} for i, lab in enumerate(labels)]
    flip = {"A>B": "B>A", "B>A": "A>B"}
    judges = {  # per pair: (decision as given, decision swapped, in the swapped order's names)
        "steady": [(lab, flip[lab]) for lab in labels],  # both orders right: +2 on all six
        "first": [("A>B", "A>B")] * 6,  # names the answer shown first: +1 -1 = 0 everywhere
        "half": [(lab, "A=B") for lab in labels[:3]] + [(flip[lab], "A=B") for lab in labels[3:]],  # +1 x3, -1 x3
    }
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    for name, decisions in judges.items():
        out = [
            {**p, "judge_name": "arena_hard", "judgments": [{"decision": a}, {"decision": b}]}
            for p, (a, b) in zip(pairs, decisions, strict=True)
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(o) + "\n" for o in out), encoding="utf-8")


def test_a_judgebench_board_ranks_by_the_vote_by_default(tmp_path):
    judgebench_files(tmp_path)
    text = evaluation("pairs.jsonl", "judgebench") + BASELINE
    text += "".join(candidate(name, f"{name}.jsonl") for name in ("steady", "first", "half"))
    found = board(tmp_path, text)
    assert {found[n]["statistic"] for n in found} == {"vote_accuracy"}
    assert [found[n]["value"] for n in ("steady", "half", "first")] == pytest.approx([1.0, 0.5, 0.0])
    assert found["always-first"]["value"] == 0.0 and found["always-first"]["rank"] is None
    assert found["first"]["figures"]["position_consistency"] == 0.0
    assert [found[n]["rank"] for n in ("steady", "half", "first")] == [1, 2, 3]
    assert found["steady"]["cluster"] < found["first"]["cluster"]


def test_best_of_n_ranks_rewardbench_only_and_rewardbench_only_by_it(tmp_path):
    config = tmp_path / "board.toml"
    config.write_text(evaluation("pairs.jsonl", "judgebench", "best_of_n") + candidate("x", "x.jsonl"))
    with pytest.raises(ConfigError, match=r"board.toml:6: evaluations\[0\].statistic: best_of_n ranks RewardBench"):
        load_config(config)
    config.write_text(evaluation("rb2.jsonl", "rewardbench", "vote_accuracy") + candidate("x", "x.jsonl"))
    with pytest.raises(ConfigError, match="RewardBench only best_of_n"):
        load_config(config)
