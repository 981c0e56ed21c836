"""Running a judge on a judge benchmark: its released pairs read as samples, both orders asked, the run folder scored
by `agreement --format` on the benchmark's own labels; a position-inconsistent pair marked; LLMBar's own prompts."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, serve_double
from stub import stats, stub_server

from judges.calls.scripted import ScriptedBackend
from judges.cli.main import main

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
# four hand-made pairs in LLMBar's `dataset.json` shape; label 1 or 2, the output that follows the instruction
PAIRS = [
    {"input": "Name a fruit.", "output_1": "An apple is a fruit that grows on trees.", "output_2": "Pear.", "label": 1},
    {"input": "Say hi.", "output_1": "Hi.", "output_2": "Hello there, nice to meet you!", "label": 2},
    {"input": "Count to three.", "output_1": "One, two, three, and that is all.", "output_2": "1 2 3", "label": 1},
    {"input": "Give a colour.", "output_1": "Red", "output_2": "Blue is my favourite colour.", "label": 1},
]


@pytest.fixture
def llmbar(tmp_path):
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps(PAIRS))
    return path


def pairwise_block(tmp_path, labels, run_dir):
    out = tmp_path / "agreement"
    args = ["agreement", "--labels", str(labels), "--format", "llmbar", "--predictions", str(run_dir)]
    assert main([*args, "--out", str(out), "--resamples", "200"]) == 0
    return json.loads((out / "agreement.json").read_text())["judges"][0]["pairwise"]


def value(block, key, order=None):
    figure = block[key][order] if order else block[key]
    return figure["value"]


def test_a_judge_on_llmbar_pairs_through_the_stub_asks_both_orders_and_agreement_reads_its_run(tmp_path, llmbar):
    out = tmp_path / "run"
    with stub_server(latency_ms=1) as base:
        args = ["metrics", "--metrics", "pairwise_preference", "--data", str(llmbar), "--format", "llmbar"]
        args += ["--out", str(out), "--judge", "openai/stub", "--api-base", base, "--cache-mode", "off"]
        done = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", *args], capture_output=True, text=True, env=ENV, cwd=tmp_path
        )
        requests = stats(base)["requests"]
    assert done.returncode == 0, done.stderr
    assert requests == 8  # four pairs, each asked in both orders
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    details = {r["id"]: r["metrics"]["pairwise_preference"]["details"] for r in records}
    # the stub prefers the longer answer wherever it is shown: consistent, A, B, A, B; ids as LLMBar's by position
    assert {i: (d["preference"], d["position_consistent"]) for i, d in details.items()} == {
        "0": ("A", True),
        "1": ("B", True),
        "2": ("A", True),
        "3": ("B", True),
    }
    block = pairwise_block(tmp_path, llmbar, out)  # labels A, B, A, A: pair 3 wrong in both orders
    assert (block["n_items"], block["orders"], block["no_verdict"]) == (4, 2, 0)
    assert value(block, "accuracy_per_order", "original") == value(block, "accuracy_per_order", "swapped") == 0.75
    assert (value(block, "both_correct"), value(block, "position_consistency")) == (0.75, 1.0)


def test_a_judge_always_naming_the_first_answer_is_position_inconsistent_on_every_pair(tmp_path, llmbar, monkeypatch):
    double = serve_double(
        monkeypatch, ScriptedBackend(lambda request: json.dumps({"reason": "1st", "preference": "A"}))
    )
    out = tmp_path / "run"
    args = ["metrics", "--metrics", "pairwise_preference", "--data", str(llmbar), "--out", str(out), "--quiet"]
    assert main([*args, "--judge", "openai/scripted", "--cache-mode", "off"]) == 0  # the format detected by shape
    assert len(double.requests) == 8
    shown = [r.messages[-1]["content"].partition("Answer A:\n")[2].partition("\n")[0] for r in double.requests]
    assert sorted(shown) == sorted([p["output_1"] for p in PAIRS] + [p["output_2"] for p in PAIRS])  # both orders
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    marked = {r["id"]: r["metrics"]["pairwise_preference"]["details"]["position_consistent"] for r in records}
    assert marked == {"0": False, "1": False, "2": False, "3": False}
    assert "position_consistent" in (out / "report.html").read_text()
    block = pairwise_block(tmp_path, llmbar, out)
    assert value(block, "position_consistency") == 0.0
    # given order: it names output_1, right on the three pairs labelled 1; swapped: output_2, right on the one labelled 2
    assert value(block, "accuracy_per_order", "original") == 0.75
    assert value(block, "accuracy_per_order", "swapped") == 0.25
    assert value(block, "both_correct") == 0.0


def test_llmbar_prompts_are_shipped_asked_with_no_schema_and_their_reply_read(tmp_path, llmbar, monkeypatch):
    replies = iter(["Output (a)", "Output (b)"] * 2 + ["Output (b)", "Output (a)"] * 2)
    double = serve_double(monkeypatch, ScriptedBackend(lambda request: next(replies)))
    out = tmp_path / "run"
    args = ["metrics", "--metrics", "pairwise_preference", "--data", str(llmbar), "--format", "llmbar"]
    args += ["--rag-prompts", "llmbar/rules", "--out", str(out), "--quiet", "--concurrency", "1"]
    assert main([*args, "--judge", "openai/scripted", "--cache-mode", "off"]) == 0
    prompts = [r.messages[-1]["content"] for r in double.requests]
    assert len(prompts) == 8 and all("response_format" not in r.params for r in double.requests)
    assert prompts[0].startswith("You are a helpful assistant in evaluating the quality of the outputs")
    assert "Here are some rules of the evaluation:" in prompts[0]
    assert "# Instruction:\nName a fruit.\n\n# Output (a):\nAn apple is a fruit that grows on trees." in prompts[0]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    found = {r["id"]: r["metrics"]["pairwise_preference"]["details"]["preference"] for r in records}
    assert sorted(found.values()) == ["A", "A", "B", "B"]  # each pair said consistently in both orders
    assert (ROOT / "prompts" / "llmbar" / "LICENSE").read_text().startswith("MIT License")
    vanilla = (ROOT / "prompts" / "llmbar" / "vanilla" / "pairwise_preference.txt.jinja").read_text()
    assert "rules of the evaluation" not in vanilla and 'ONLY "Output (a)" or "Output (b)"' in vanilla


def test_the_dry_run_counts_two_calls_per_pair_and_rewardbench_is_refused(tmp_path, llmbar, capsys):
    args = ["metrics", "--metrics", "pairwise_preference", "--data", str(llmbar), "--dry-run"]
    assert main(args) == 0
    assert "at most 8 first calls" in capsys.readouterr().out
    rewardbench = tmp_path / "rb.jsonl"
    rewardbench.write_text(json.dumps({"id": "1", "prompt": "p", "chosen": ["a"], "rejected": ["b"], "subset": "s"}))
    assert main(["metrics", "--metrics", "pairwise_preference", "--data", str(rewardbench), "--dry-run"]) == 2
    assert "RewardBench is scored best of n" in capsys.readouterr().err
    assert main([*args[:-1], "--format", "judgebench", "--dry-run"]) == 2  # LLMBar rows named as another format
    assert "not judgebench rows (they look like llmbar)" in capsys.readouterr().err


def mtbench_rows(votes, judge):
    """MT-Bench human-judgment rows: (question_id, model_a, model_b, winner) each, turn 1."""
    keys = ("question_id", "model_a", "model_b", "winner")
    return [{**dict(zip(keys, vote, strict=True)), "judge": judge, "turn": 1} for vote in votes]


# the humans: judge-x loses q1, wins q2, ties q3; other-a beats other-b on q4
HUMANS = [
    (1, "judge-x", "other-a", "model_b"),
    (2, "other-a", "judge-x", "model_b"),
    (3, "judge-x", "other-b", "tie"),
    (4, "other-a", "other-b", "model_a"),
]
# the judge (judge-x itself) hands every one of its own comparisons to itself and agrees on q4
JUDGE = [
    (1, "other-a", "judge-x", "model_b"),
    (2, "judge-x", "other-a", "model_a"),
    (3, "judge-x", "other-b", "model_a"),
    (4, "other-a", "other-b", "model_a"),
]


def test_self_preference_on_mtbench_pairs_gives_each_systems_win_rates_and_the_judges_own_gap(tmp_path):
    labels, judged = tmp_path / "human.jsonl", tmp_path / "gpt4_pair.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in mtbench_rows(HUMANS, "expert_0")))
    judged.write_text("".join(json.dumps(r) + "\n" for r in mtbench_rows(JUDGE, ["judge-x", "pair-v2"])))
    out = tmp_path / "agreement"
    args = ["agreement", "--labels", str(labels), "--predictions", str(judged), "--out", str(out)]
    assert main([*args, "--resamples", "200"]) == 0  # the format detected, the judge found by its model name
    found = json.loads((out / "agreement.json").read_text())["judges"][0]["self_preference"]
    assert (found["judge_system"], found["found_by"], found["rows"]) == ("judge-x", "the judge's model name", 4)
    rates = {
        name: (part["votes"], part["human_win_rate"]["value"], part["judge_win_rate"]["value"])
        for name, part in found["systems"].items()
    }
    # ties count half: judge-x by the humans (0 + 1 + 0.5) / 3, by itself 3 / 3
    assert rates == {
        "judge-x": (3, pytest.approx(0.5), pytest.approx(1.0)),
        "other-a": (3, pytest.approx(2 / 3), pytest.approx(1 / 3)),
        "other-b": (2, pytest.approx(0.25), pytest.approx(0.0)),
    }
    assert found["own_system_gap"]["value"] == pytest.approx(0.5) and len(found["own_system_gap"]["ci"]) == 2
    assert "Self-preference: the judge is judge-x" in (out / "agreement.md").read_text()
    # named on the command line, another system is the judge's own
    assert main([*args, "--resamples", "200", "--judge-system", "other-a"]) == 0
    named = json.loads((out / "agreement.json").read_text())["judges"][0]["self_preference"]
    assert (named["judge_system"], named["own_system_gap"]["value"]) == ("other-a", pytest.approx(-1 / 3))
    assert main([*args, "--judge-system", "nobody"]) == 2
