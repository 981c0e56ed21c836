"""Against the loopback stub: faults end as grades or explicit failures, kill -9 then resume, no secret on disk."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import ROOT
from stub import stats, stub_server

FAKE_KEY = "sk-judgelab-PLANTED-FAKE-KEY-8d1f0c"


def cli(base_url, tmp_path, *extra, out="run", env_extra=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY, **(env_extra or {})}
    command = [sys.executable, "-m", "judges.cli.main", "meta-eval", "--judge", "openai/stub", "--api-base", base_url,
               "--tests", str(ROOT / "unit_tests" / "test.jsonl"), "--out", str(tmp_path / out),
               "--cache", str(tmp_path / "cache.sqlite"), *extra]
    return command, env


def run(base_url, tmp_path, *extra, out="run"):
    command, env = cli(base_url, tmp_path, *extra, out=out)
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_faulty_server_every_call_ends_as_a_grade_or_an_explicit_failure(tmp_path):
    with stub_server(latency_ms=20, error_rate=0.2, garbage_rate=0.3, seed=3) as base:
        result = run(base, tmp_path, "--limit", "48", "--concurrency", "16")
        served = stats(base)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 48 == report["summary"]["n_tests"]  # nothing lost
    judged_metrics = ("answer_relevancy", "completeness", "faithfulness", "usefulness")
    failures = 0
    for row in rows:
        for metric, entry in row["metrics"].items():
            verdict = entry["verdict"]
            assert verdict["state"] in ("grade", "null", "failure")
            if verdict["state"] == "failure":
                assert verdict["failure_kind"] in ("api_error", "timeout", "unparseable", "refused")
                assert entry["outcome"] == "format_failure"
                failures += metric in judged_metrics
    assert failures > 0  # 10% garbage twice in a row, or a 5xx four times, does happen in 48 tests
    judged = report["summary"]["metrics"]
    assert sum(judged[m]["format_failures"] for m in judged_metrics) == failures
    runtime = report["run"]["runtime"]
    assert served["500"] + served["429"] > 0 and served["garbage"] > 0
    assert runtime["retries"] > 0  # the 5xx / 429 replies were retried
    assert sum(r["metrics"][m]["calls"] for r in rows for m in r["metrics"] if "calls" in r["metrics"][m]) \
        == served["ok"]  # every reply that arrived is accounted to a metric (re-asks included)


def test_kill_9_then_rerun_makes_no_completed_call_again(tmp_path):
    with stub_server(latency_ms=150, max_concurrency=4) as base:
        command, env = cli(base, tmp_path, "--limit", "24", "--concurrency", "4", out="first")
        process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache = tmp_path / "cache.sqlite"
        deadline = time.monotonic() + 120
        done = 0
        while time.monotonic() < deadline and done < 20:
            time.sleep(0.2)
            if cache.exists():
                with sqlite3.connect(cache) as db:
                    done = db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        time.sleep(0.5)  # requests the killed client left in flight still finish at the server
        with sqlite3.connect(cache) as db:
            recorded = db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        assert recorded >= 20
        before = stats(base)["requests"]
        result = run(base, tmp_path, "--limit", "24", "--concurrency", "4", out="second")
        made = stats(base)["requests"] - before
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((tmp_path / "second" / "report.json").read_text())
    runtime = report["run"]["runtime"]
    assert runtime["cached_calls"] >= recorded - 4  # the calls that completed came from the cache ...
    assert made == runtime["calls"] - runtime["cached_calls"]  # ... and only the rest reached the server
    assert report["summary"]["n_tests"] == 24


def test_a_planted_api_key_appears_in_no_file_the_run_writes(tmp_path):
    with stub_server(latency_ms=5, garbage_rate=0.2) as base:
        result = run(base, tmp_path, "--limit", "4", "--extra", json.dumps({"api_key": FAKE_KEY}))
    assert result.returncode == 0, result.stderr[-3000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "cache.sqlite" for p in written) and any(p.name == "report.json" for p in written)
    for path in written:
        assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in result.stdout + result.stderr


def test_embedding_calls_are_retried_on_server_errors():
    import asyncio

    from judges.rag.embeddings import LiteLLMEmbedder
    from judges.calls.runtime import RuntimeSettings

    texts = [f"sentence number {i}" for i in range(6)]
    with stub_server(latency_ms=1, error_rate=0.5, seed=1) as base:
        embedder = LiteLLMEmbedder("openai/stub-embed", api_base=base,
                                   retries=RuntimeSettings(max_attempts=6, backoff_initial_s=0.01, backoff_max_s=0.05))
        os.environ.setdefault("OPENAI_API_KEY", "sk-fake")

        async def each():
            return [await embedder.embed([t]) for t in texts]

        rows = asyncio.run(each())
        served = stats(base)
    assert all(r.shape == (1, 32) for r in rows)
    assert embedder.retried > 0  # failures got past LiteLLM's own two retries, and ours took over
    assert served["embeddings"] == len(texts)  # every text embedded once, after its failed tries
