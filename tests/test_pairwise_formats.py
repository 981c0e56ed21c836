"""The judge benchmarks' released formats read as they are, on small hand-made files: hand counts through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judges.agreement.pairwise_formats import detect_spec
from judges.cli.main import main


def jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def agreement(tmp_path: Path, labels: str, *predictions: str, fmt: str | None = None) -> dict[str, Any]:
    args = ["agreement", "--labels", labels, "--out", str(tmp_path / "out"), "--resamples", "200"]
    args += [a for p in predictions for a in ("--predictions", p)] + (["--format", fmt] if fmt else [])
    assert main(args) == 0
    return dict(json.loads((tmp_path / "out" / "agreement.json").read_text()))


def value(block: dict[str, Any], *path: str) -> float:
    for key in path:
        block = block[key]
    return float(block["value"])


def judgement(decision: str | None, scores: list[float] | None = None) -> dict[str, Any]:
    return {
        "judgment": {"judge_model": "m", "scores": scores} if scores else {"judge_model": "m"},
        "decision": decision,
    }


def test_judgebench_vote_rule_per_category(tmp_path):
    pairs = [  # (pair_id, source, label, first judgment, second judgment: in the swapped order)
        ("p1", "mmlu-pro-law", "A>B", judgement("A>B"), judgement("B>A")),  # both right: +2
        ("p2", "mmlu-pro-math", "B>A", judgement("A>B"), judgement("A>B")),  # wrong then right: 0, counts against
        ("p3", "livebench-math", "A>B", judgement("A=B"), judgement("B>A")),  # tie then right: +1
        ("p4", "livebench-math", "B>A", judgement(None, [1.0, 2.0]), judgement(None, [2.0, 1.0])),  # reward scores
    ]
    rows = [
        {"pair_id": p, "source": s, "label": lab, "response_A": "a", "response_B": "b"} for p, s, lab, _, _ in pairs
    ]
    labels = jsonl(tmp_path / "dataset=judgebench,response_model=gpt-4o.jsonl", rows)
    outputs = [{**row, "judgments": [j1, j2]} for row, (_, _, _, j1, j2) in zip(rows, pairs, strict=True)]
    judge = jsonl(tmp_path / "outputs.jsonl", outputs)
    assert detect_spec(labels) == "judgebench"
    block = agreement(tmp_path, labels, judge)["judges"][0]["pairwise"]
    assert value(block, "vote_accuracy") == 3 / 4
    assert value(block, "accuracy_per_order", "original") == 2 / 4
    assert value(block, "accuracy_per_order", "swapped") == 4 / 4
    assert value(block, "both_correct") == 2 / 4  # p1, p4
    assert value(block, "position_consistency") == 2 / 4  # p1, p4
    assert value(block["per_category"]["knowledge"], "vote_accuracy") == 1 / 2
    assert value(block["per_category"]["math"], "vote_accuracy") == 2 / 2


def test_mtbench_with_and_without_ties(tmp_path):
    def vote(qid: int, a: str, b: str, winner: str, judge: Any, turn: int) -> dict[str, Any]:
        return {"question_id": qid, "model_a": a, "model_b": b, "winner": winner, "judge": judge, "turn": turn}

    human = [
        vote(81, "vicuna", "alpaca", "model_a", "expert_0", 1),  # in name order: alpaca, vicuna -> B
        vote(81, "alpaca", "vicuna", "tie (bothbad)", "expert_1", 1),  # a tie
        vote(82, "alpaca", "gpt-4", "model_b", "expert_2", 1),  # B
        vote(82, "alpaca", "gpt-4", "model_a", "expert_2", 2),  # A, turn 2
    ]
    gpt4 = [
        vote(81, "alpaca", "vicuna", "model_b", ["gpt-4", "pair-v2"], 1),  # B: right for expert_0, not expert_1
        vote(82, "gpt-4", "alpaca", "tie", ["gpt-4", "pair-v2"], 1),  # tie: wrong, dropped without ties
        vote(82, "alpaca", "gpt-4", "model_a", ["gpt-4", "pair-v2"], 2),  # A: right
    ]
    data = agreement(tmp_path, jsonl(tmp_path / "human.jsonl", human), jsonl(tmp_path / "gpt4_pair.jsonl", gpt4))
    block = data["judges"][0]["pairwise"]
    assert (block["orders"], block["n_rows"], block["n_items"]) == (1, 4, 3)
    assert value(block, "accuracy_with_ties") == 2 / 4
    assert value(block, "accuracy_without_ties") == 2 / 2
    assert "both_correct" not in block  # the authors combined the orders: no per-order figures
    assert value(block["per_category"]["turn 1"], "accuracy_with_ties") == 1 / 3


def test_rewardbench_best_of_n_per_subset_and_mean(tmp_path):
    prompts = [
        {"id": i, "prompt": "p", "subset": subset, "chosen": ["c"], "rejected": ["r1", "r2", "r3"]}
        for i, subset in ((1, "Math"), (2, "Math"), (3, "Focus"), (4, "Focus"))
    ]
    scores = [
        {"id": 1, "scores": [3.0, 1.0, 2.0, 2.5]},  # right
        {"id": 2, "scores": [2.0, 1.0, 2.0, 0.0]},  # a rejected answer shares the top score: 1/2
        {"id": 3, "scores_chosen": [5.0], "scores_rejected": [4.0, 4.9, 1.0]},  # right
    ]  # prompt 4 has no scores: 0
    data = agreement(tmp_path, jsonl(tmp_path / "rb2.jsonl", prompts), jsonl(tmp_path / "scores.jsonl", scores))
    best = data["judges"][0]["pairwise"]["best_of_n"]
    assert {name: f["value"] for name, f in best["subsets"].items()} == {"Focus": 0.5, "Math": 0.75}
    assert best["mean"]["value"] == 0.625 and (best["scored"], best["n"]) == (3, 4)


def test_llmbar_files_and_an_unparsed_reply(tmp_path):
    rows = [{"input": f"i{n}", "output_1": "x", "output_2": "y", "label": label} for n, label in enumerate((1, 2, 2))]
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "dataset.json").write_text(json.dumps(rows))
    winners = (("1", "1"), ("2", "1"), (None, "2"))  # right both; right then wrong; no verdict then right
    result = [
        {**row, "results": [{"swap = False": {"winner": a}, "swap = True": {"winner": b}}]}
        for row, (a, b) in zip(rows, winners, strict=True)
    ]
    (tmp_path / "result.json").write_text(json.dumps(result))
    data = agreement(tmp_path, str(tmp_path / "set"), str(tmp_path / "result.json"), fmt="llmbar")
    block = data["judges"][0]["pairwise"]
    assert block["no_verdict"] == 1
    assert value(block, "accuracy_per_order", "original") == 2 / 3  # rows 0 and 1
    assert value(block, "accuracy_per_order", "swapped") == 2 / 3
    assert value(block, "both_correct") == 1 / 3
    assert value(block, "position_consistency") == 1 / 3
    assert value(data["references"]["always first shown"], "accuracy_per_order", "original") == 1 / 3
    md = (tmp_path / "out" / "agreement.md").read_text()
    assert "always first shown" in md and "both correct:" in md


def test_a_hub_id_offline_is_one_line(tmp_path, monkeypatch, capsys):
    datasets = pytest.importorskip("datasets")
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.chdir(tmp_path)
    args = ["agreement", "--labels", "lmsys/mt_bench_human_judgments:human", "--format", "mtbench"]
    code = main([*args, "--predictions", "lmsys/mt_bench_human_judgments:gpt4_pair", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "lmsys/mt_bench_human_judgments" in err and "Traceback" not in err


def test_a_bad_label_names_file_row_and_field(tmp_path, capsys):
    labels = jsonl(tmp_path / "pairs.jsonl", [{"pair_id": "p1", "label": "A>B"}, {"pair_id": "p2", "label": "A>>B"}])
    judge = jsonl(tmp_path / "out.jsonl", [{"pair_id": "p1", "label": "A>B", "judgments": [judgement("A>B")]}])
    assert main(["agreement", "--labels", labels, "--predictions", judge, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "pairs.jsonl" in err and "row 1" in err and "label" in err


def test_verdicts_on_other_items_are_refused_not_scored_as_wrong(tmp_path, capsys):
    labels = jsonl(tmp_path / "pairs.jsonl", [{"pair_id": "p1", "label": "A>B"}])
    judge = jsonl(tmp_path / "out.jsonl", [{"pair_id": "q9", "label": "A>B", "judgments": [judgement("A>B")]}])
    assert main(["agreement", "--labels", labels, "--predictions", judge, "--out", str(tmp_path / "o")]) == 2
    assert "no item of the labels has a verdict" in capsys.readouterr().err


def test_the_format_is_detected_from_the_first_row_alone(tmp_path):
    """Regression: detection read every row of a labels file into memory (a million labels: +500 MB at peak); a
    second line that is not JSON shows that only the first is read."""
    from judges.agreement.pairwise_formats import detect_spec

    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"input": "q", "output_1": "a", "output_2": "b", "label": 1}\nnot json\n', encoding="utf-8")
    assert detect_spec(str(labels)) == "llmbar"
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"id": "1", "label": 1}\nnot json\n', encoding="utf-8")
    assert detect_spec(str(plain)) is None
