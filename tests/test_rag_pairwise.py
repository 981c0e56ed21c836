"""The pairwise judge: two answers to one question, asked in both orders; orders that disagree are a tie."""

import json
import os
import subprocess
import sys

from conftest import ROOT
from rag_helpers import score
from stub import stats, stub_server

from judges.calls.scripted import by_metric
from judges.cli.main import main
from judges.types import Sample

SAMPLE = Sample(
    id="p",
    input="How long is maternity leave?",
    actual_output="Maternity leave lasts 52 weeks [1].",
    alternative_output="It lasts a year.",
    references=("Maternity leave lasts up to 52 weeks.",),
)
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def said(letter):
    return json.dumps({"reason": "r", "preference": letter})


def test_a_judge_that_always_prefers_the_first_position_scores_ties_only():
    result, backend = score("pairwise_preference", SAMPLE, by_metric({"pairwise_preference": said("A")}))
    assert (result.value, result.details["preference"], result.details["position_consistent"]) == (0.0, "tie", False)
    prompts = [str(request.messages) for request in backend.requests]
    assert len(prompts) == 2  # asked in both orders
    first, second = (p.partition("Answer A:")[2] for p in prompts)
    assert first.index("52 weeks") < first.index("a year") and second.index("a year") < second.index("52 weeks")


def test_a_judge_consistent_across_orders_gives_its_preference():
    # A first: the sample's answer is A; B first: the sample's answer is shown as B, so a judge preferring it says B
    result, _ = score("pairwise_preference", SAMPLE, by_metric({"pairwise_preference": [said("A"), said("B")]}))
    assert (result.value, result.details["preference"], result.details["position_consistent"]) == (-1.0, "A", True)
    result, _ = score("pairwise_preference", SAMPLE, by_metric({"pairwise_preference": [said("B"), said("A")]}))
    assert (result.value, result.details["preference"]) == (1.0, "B")
    result, _ = score("pairwise_preference", SAMPLE, by_metric({"pairwise_preference": said("tie")}))
    assert (result.value, result.details["preference"], result.details["position_consistent"]) == (0.0, "tie", True)


def test_a_sample_without_an_alternative_answer_is_not_applicable():
    alone = Sample(id="q", input="Q?", actual_output="A.")
    result, backend = score("pairwise_preference", alone, by_metric({"pairwise_preference": said("A")}))
    assert result.value is None and not result.applicable and "alternative_output" in result.why
    assert not backend.requests


def test_metrics_pairwise_preference_asks_each_pair_in_both_orders_through_the_cli(tmp_path):
    rows = [
        {"id": "longer-first", "question": "Q1?", "answer": "A long and detailed answer.", "answer_b": "Short."},
        {"id": "longer-second", "question": "Q2?", "answer": "Short.", "alternative_output": "A long, full answer."},
        {"id": "same-length", "question": "Q3?", "answer": "Same.", "alternative_output": "Also."},
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    with stub_server(latency_ms=1) as base:
        args = ["metrics", "--metrics", "pairwise_preference", "--data", str(data), "--out", str(out)]
        args += ["--judge", "openai/stub", "--api-base", base, "--cache-mode", "off"]
        done = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", *args], capture_output=True, text=True, env=ENV, cwd=tmp_path
        )
        requests = stats(base)["requests"]
    assert done.returncode == 0, done.stderr
    assert requests == 6  # three pairs, each in both orders
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    found = {r["id"]: r["metrics"]["pairwise_preference"]["details"]["preference"] for r in records}
    assert found == {"longer-first": "A", "longer-second": "B", "same-length": "tie"}
    # the verdicts carry the sign preference labels use: agreement scores the run on them (2 of 3 agree)
    labels = tmp_path / "labels.jsonl"
    common = {"metric": "pairwise_preference", "label_type": "preference", "scale": [-1, 1], "annotator": "h"}
    common |= {"input": "Q?", "actual_output": "a", "actual_output_b": "b"}  # a preference label names its pair
    wanted = {"longer-first": -1, "longer-second": 1, "same-length": -1}
    labels.write_text("".join(json.dumps({"id": i, "label": label, **common}) + "\n" for i, label in wanted.items()))
    assert main(["agreement", "--labels", str(labels), "--predictions", str(out), "--out", str(tmp_path / "a")]) == 0
    assert "| agreement          | 0.6667  |" in (tmp_path / "a" / "agreement.md").read_text()
