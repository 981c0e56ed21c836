"""Each judge benchmark's released files, written here in their released shapes, through `judgelab agreement`: the
format named and detected give the same figures, and those figures equal hand counts by the sources' own rules
(JudgeBench's vote, FastChat's agreement with and without ties, RewardBench 2's best of n, self-preference)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judges.cli.main import main


def jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def agreement(out: Path, labels: str, *predictions: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    args = ["agreement", "--labels", labels, "--out", str(out), "--resamples", "200", *extra]
    assert main(args + [a for p in predictions for a in ("--predictions", p)]) == 0
    return dict(json.loads((out / "agreement.json").read_text(encoding="utf-8")))


def both_ways(tmp_path: Path, fmt: str, labels: str, *predictions: str) -> list[dict[str, Any]]:
    """The judges' entries with --format named and with the format detected: the same figures either way."""
    named = agreement(tmp_path / "named", labels, *predictions, extra=("--format", fmt))
    detected = agreement(tmp_path / "detected", labels, *predictions)
    assert named["format"] == detected["format"] == fmt
    assert named["judges"] == detected["judges"]
    return list(named["judges"])


def value(block: dict[str, Any], *path: str) -> float:
    for key in path:
        block = block[key]
    return float(block["value"])


# JudgeBench: data/dataset=judgebench,response_model=....jsonl and outputs/dataset=...,judge_name=...,judge_model=....jsonl
JB_PAIRS = [  # (source, label)
    ("mmlu-pro-law", "A>B"),
    ("mmlu-pro-math", "B>A"),
    ("livebench-reasoning", "A>B"),
    ("livebench-math", "B>A"),
    ("livecodebench", "A>B"),
    ("livecodebench", "B>A"),
]
# a prompted judge: per pair, the decision on the pair as given and on it swapped (named in the swapped order)
ARENA_HARD = [("A>B", "B>A"), ("A>B", "A>B"), ("A=B", "B>A"), (None, "A>B"), ("B>A", "A=B"), ("skip", "A>B")]


def jb_pair(number: int, source: str, label: str) -> dict[str, Any]:
    return {
        "pair_id": f"pair-{number}",
        "original_id": number,
        "source": source,
        "question": f"question {number}",
        "response_model": "gpt-4o-2024-05-13",
        "response_A": "a",
        "response_B": "b",
        "label": label,
    }


def prompted(decision: str | None) -> dict[str, Any] | None:
    if decision == "skip":
        return None  # JudgeBench's metrics allow a missing judgment
    return {"judgment": {"judge_model": "gpt-4o", "prompt": "p", "response": "r"}, "decision": decision}


def reward(score_a: float, score_b: float) -> dict[str, Any]:
    decision = "A>B" if score_a > score_b else "B>A"
    judgment = {"judge_model": "rm", "prompt": "", "response": "", "scores": [score_a, score_b]}
    return {"judgment": judgment, "decision": decision}


def test_judgebench_released_files_vote_accuracy_per_category_by_hand(tmp_path):
    pairs = [jb_pair(n, source, label) for n, (source, label) in enumerate(JB_PAIRS)]
    labels = jsonl(tmp_path / "data" / "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl", pairs)
    judged = [
        {**p, "judge_name": "arena_hard", "judgments": [prompted(a), prompted(b)]}
        for p, (a, b) in zip(pairs, ARENA_HARD, strict=True)
    ]
    arena = jsonl(tmp_path / "outputs" / "judge_name=arena_hard,judge_model=gpt-4o.jsonl", judged)
    # a reward model: its scores in each order (the second on the swapped pair), wrong both ways on pair 1 only
    scored = [
        {**p, "judge_name": "reward_model", "judgments": [reward(2, 1), reward(1, 2)]}
        if (p["label"] == "A>B") != (n == 1)
        else {**p, "judge_name": "reward_model", "judgments": [reward(1, 2), reward(2, 1)]}
        for n, p in enumerate(pairs)
    ]
    rm = jsonl(tmp_path / "outputs" / "judge_name=reward_model,judge_model=rm.jsonl", scored)
    first, second = (entry["pairwise"] for entry in both_ways(tmp_path, "judgebench", labels, arena, rm))
    # votes (+1 the label, -1 the other answer, 0 a tie or none): +2, 0, +1, +1, -1, +1 -> right on 0, 2, 3, 5
    assert value(first, "vote_accuracy") == pytest.approx(4 / 6)
    assert {name: value(part, "vote_accuracy") for name, part in first["per_category"].items()} == {
        "knowledge": 0.5,
        "reasoning": 1.0,
        "math": 1.0,
        "coding": 0.5,
    }
    assert value(first, "accuracy_per_order", "original") == pytest.approx(1 / 6)
    assert value(first, "accuracy_per_order", "swapped") == pytest.approx(5 / 6)
    assert value(first, "both_correct") == pytest.approx(1 / 6) and first["no_verdict"] == 2
    assert value(second, "vote_accuracy") == pytest.approx(5 / 6)  # -2 on pair 1, +2 elsewhere
    assert value(second, "position_consistency") == 1.0
    # a judge's output file repeats the pairs: read as the labels it gives the same figures
    again = agreement(tmp_path / "from-output", arena, arena)["judges"][0]["pairwise"]
    assert value(again, "vote_accuracy") == pytest.approx(4 / 6)


# MT-Bench human judgments: the `human` and `gpt4_pair` splits (FastChat's files: `judge` a list for GPT-4)
def vote(qid: int, a: str, b: str, winner: str, judge: Any, turn: int) -> dict[str, Any]:
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "r"}]
    return {
        "question_id": qid,
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": judge,
        "conversation_a": conversation,
        "conversation_b": conversation,
        "turn": turn,
    }


GPT4, VICUNA, ALPACA = "gpt-4", "vicuna-13b-v1.2", "alpaca-13b"
HUMAN = [
    vote(81, GPT4, ALPACA, "model_a", "expert_0", 1),  # item 81|alpaca|gpt-4|1: B
    vote(81, ALPACA, GPT4, "model_b", "expert_1", 1),  # B
    vote(81, GPT4, ALPACA, "tie (bothbad)", "expert_2", 1),  # tie
    vote(81, GPT4, ALPACA, "model_b", "author_0", 1),  # an author's vote: not compared (FastChat)
    vote(81, ALPACA, GPT4, "model_a", "expert_0", 2),  # item 81|alpaca|gpt-4|2: A
    vote(82, GPT4, VICUNA, "tie", "expert_3", 1),  # item 82|gpt-4|vicuna|1: tie
    vote(82, VICUNA, GPT4, "model_a", "expert_4", 1),  # B (vicuna)
    vote(83, ALPACA, VICUNA, "model_a", "expert_0", 1),  # no GPT-4 vote on this item: left out (FastChat)
]


def gpt4_votes(judge: Any, multi: Any) -> list[dict[str, Any]]:
    return [
        vote(81, GPT4, ALPACA, "model_a", judge, 1),  # B: gpt-4
        vote(81, ALPACA, GPT4, "model_b", multi, 2),  # B: gpt-4
        vote(82, GPT4, VICUNA, "tie", judge, 1),  # tie
        vote(84, ALPACA, GPT4, "model_a", judge, 1),  # an item no expert voted on
    ]


def test_mtbench_human_and_gpt4_pair_splits_agreement_with_and_without_ties_by_hand(tmp_path):
    human = jsonl(tmp_path / "human.jsonl", HUMAN)
    gpt4 = jsonl(tmp_path / "gpt4_pair.jsonl", gpt4_votes(["gpt-4", "pair-v2"], ["gpt-4", "pair-v2-multi-turn"]))
    (entry,) = both_ways(tmp_path, "mtbench", human, gpt4)
    block = entry["pairwise"]
    assert (block["orders"], block["n_rows"], block["n_items"], block["votes_on_items_not_judged"]) == (1, 6, 3, 1)
    # with ties: item 81/1 B, B, tie against B (2 agree), 81/2 A against B, 82/1 tie, B against tie (1 agrees)
    assert value(block, "accuracy_with_ties") == pytest.approx(3 / 6)
    # without ties: a vote is dropped when either side calls a tie: 81/1 B, B agree, 81/2 does not
    assert value(block, "accuracy_without_ties") == pytest.approx(2 / 3)
    assert value(block["per_category"]["turn 1"], "accuracy_with_ties") == pytest.approx(3 / 5)
    assert value(block["per_category"]["turn 2"], "accuracy_with_ties") == 0.0
    # self-preference: the judge is gpt-4 (its `judge` names it), one of the systems
    found = entry["self_preference"]
    assert (found["judge_system"], found["found_by"]) == ("gpt-4", "the judge's model name")
    gpt = found["systems"]["gpt-4"]
    # the experts give gpt-4 1 + 1 + 0.5 (81/1), 0 (81/2), 0.5 + 0 (82/1, gpt-4 is answer A) of 6; the judge
    # 1 + 1 + 1, 1, 0.5 + 0.5
    assert (gpt["votes"], gpt["human_win_rate"]["value"], gpt["judge_win_rate"]["value"]) == (
        6,
        pytest.approx(0.5),
        pytest.approx(5 / 6),
    )
    assert found["own_system_gap"]["value"] == pytest.approx(1 / 3)
    assert (
        "1 votes on items this judge did not vote on are left out" in (tmp_path / "named" / "agreement.md").read_text()
    )


# RewardBench 2: allenai/reward-bench-2 rows, and a model's scores as allenai/reward-bench-2-results releases them
RB_PROMPTS = [  # (id, subset, chosen, rejected answers)
    ("1", "Factuality", 1, 3),
    ("2", "Factuality", 1, 3),
    ("3", "Math", 1, 3),
    ("4", "Math", 1, 3),
    ("ref:7", "Ties", 1, 2),
    ("tied:7", "Ties", 2, 1),
]
RB_SCORES = [[3, 1, 2, 0], [2, 2, 1, 2], [1, 2, 0, 0], [5, 4, 3, 2], [4, 1, 2], [5, 3, 1]]


def rb_row(item: str, subset: str, good: int, bad: int) -> dict[str, Any]:
    return {
        "id": item,
        "prompt": "p",
        "chosen": [f"c{i}" for i in range(good)],
        "rejected": [f"r{i}" for i in range(bad)],
        "num_correct": good,
        "num_incorrect": bad,
        "total_completions": good + bad,
        "models": ["m"] * (good + bad),
        "subset": subset,
        "additional_metadata": {},
    }


def test_rewardbench_2_best_of_n_per_subset_and_their_mean_by_hand(tmp_path):
    labels = jsonl(tmp_path / "reward-bench-2.jsonl", [rb_row(*p) for p in RB_PROMPTS])
    released = {  # eval-set-scores/<model>.json: one object of columns, each answer's score a one-element list
        "id": [p[0] for p in RB_PROMPTS],
        "subset": [p[1] for p in RB_PROMPTS],
        "scores": [[[float(s)] for s in scores] for scores in RB_SCORES],
        "results": [1, 0, 0, 1, None, None],
        "num_correct": [p[2] for p in RB_PROMPTS],
        "text": [["t"] * len(scores) for scores in RB_SCORES],
        "model": "org/rm",
        "model_type": "Seq. Classifier",
        "chat_template": "tokenizer",
    }
    columns = tmp_path / "org" / "rm.json"
    columns.parent.mkdir()
    columns.write_text(json.dumps(released), encoding="utf-8")
    rows = jsonl(tmp_path / "rm-rows.jsonl", [{"id": p[0], "scores": s} for p, s in zip(RB_PROMPTS, RB_SCORES)])
    a, b = (entry["pairwise"]["best_of_n"] for entry in both_ways(tmp_path, "rewardbench", labels, str(columns), rows))
    assert a == b
    # Factuality: 1, and 1/3 (the chosen answer shares the top with two rejected); Math: 0 and 1
    # Ties: both accurate (0.30 + 0.30); tied:7's gap 3 - 1 is not above its correct answers' spread 5 - 3, nor is
    # the smaller of it and ref:7's gap 4 - 2; the margin term tanh(2 / 2 - 1) = 0
    subsets = {name: figure["value"] for name, figure in a["subsets"].items()}
    assert subsets == pytest.approx({"Factuality": 2 / 3, "Math": 0.5, "Ties": 0.6})
    assert a["mean"]["value"] == pytest.approx(np.mean([2 / 3, 0.5, 0.6]))
    assert (a["scored"], a["n"]) == (6, 6)
    md = (tmp_path / "named" / "agreement.md").read_text(encoding="utf-8")
    assert "best of n: Ties" in md and "best of n: mean of subsets" in md


def test_a_hub_dataset_is_read_through_datasets_a_local_copy_in_its_layout(tmp_path, monkeypatch):
    """The hub path (`owner/name:split` through datasets.load_dataset) on a local folder in the hub's layout, so
    no network: the same figures as the split files read directly."""
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    as_str = [{**row, "judge": str(row["judge"])} for row in HUMAN]  # one schema for both splits
    jsonl(tmp_path / "mt_bench" / "data" / "human-00000-of-00001.jsonl", as_str)
    jsonl(tmp_path / "mt_bench" / "data" / "gpt4_pair-00000-of-00001.jsonl", gpt4_votes("gpt-4", "gpt-4"))
    hub = str(tmp_path / "mt_bench")
    read = agreement(tmp_path / "hub", f"{hub}:human", f"{hub}:gpt4_pair", extra=("--format", "mtbench"))
    block = read["judges"][0]["pairwise"]
    assert value(block, "accuracy_with_ties") == pytest.approx(3 / 6)
    assert value(block, "accuracy_without_ties") == pytest.approx(2 / 3)
    assert read["judges"][0]["self_preference"]["own_system_gap"]["value"] == pytest.approx(1 / 3)
