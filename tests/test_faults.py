"""Against the loopback stub: faults end as grades or explicit failures, kill -9 then resume, no secret on disk."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import ROOT, hang_guard
from stub import stats, stub_server

FAKE_KEY = "sk-judgelab-PLANTED-FAKE-KEY-8d1f0c"


def cli(base_url, tmp_path, *extra, out="run", env_extra=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY, **(env_extra or {})}
    command = [
        sys.executable,
        "-m",
        "judges.cli.main",
        "meta-eval",
        "--judge",
        "openai/stub",
        "--api-base",
        base_url,
        "--tests",
        str(ROOT / "unit_tests" / "test.jsonl"),
        "--out",
        str(tmp_path / out),
        "--cache",
        str(tmp_path / "cache.sqlite"),
        *extra,
    ]
    return command, env


def run(base_url, tmp_path, *extra, out="run"):
    command, env = cli(base_url, tmp_path, *extra, out=out)
    return subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=hang_guard())


# garbage twice in a row (the reply and its re-ask) is what makes a failure verdict: common enough at 25%
FAULTS = dict(latency_ms=20, error_rate=0.2, garbage_rate=0.25, hang_rate=0.05, seed=3)
KINDS = {"api_error", "timeout", "unparseable", "refused", "upstream_failed"}


def command_for(kind, base, tmp_path):
    """A meta-eval, evaluate or metrics command against the stub, with a short timeout for the hung requests."""
    common = [
        "--judge",
        "openai/stub",
        "--api-base",
        base,
        "--out",
        str(tmp_path / kind),
        "--cache",
        str(tmp_path / f"{kind}.sqlite"),
        "--timeout",
        "2",
        "--concurrency",
        "16",
    ]
    if kind == "meta-eval":
        return ["meta-eval", "--tests", str(ROOT / "unit_tests" / "test.jsonl"), "--limit", "48", *common]
    if kind == "evaluate":
        return ["evaluate", str(ROOT / "unit_tests" / "test.jsonl"), "--limit", "40", *common]
    return [
        "metrics",
        "--data",
        str(ROOT / "unit_tests" / "test.jsonl"),
        "--limit",
        "24",
        "--metrics",
        "grouse,llamaindex_faithfulness,llamaindex_relevancy,ragas_aspect_harmfulness",
        *common,
    ]


@pytest.mark.parametrize("kind", ["meta-eval", "evaluate", "metrics"])
def test_under_faults_every_verdict_is_a_grade_a_null_or_a_failure_with_its_kind(kind, tmp_path):
    """20% 5xx/429, 25% garbage and 5% hung requests: nothing is lost, no failure is a wrong grade, and the counts
    in run.json are those of results.jsonl."""
    from judges.records import ItemRecord, Summary
    from judges.runs.summarizer import summarize

    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY}
    with stub_server(**FAULTS) as base:
        result = subprocess.run(
            [sys.executable, "-m", "judges.cli.main", *command_for(kind, base, tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=hang_guard(),
        )
        served = stats(base)
    meta = json.loads((tmp_path / kind / "run.json").read_text())
    # so many faults may leave a metric with more failed verdicts than --fail-on-error's 10%: exit 5, said so
    degraded = meta["stop_reason"] == "degraded"
    assert result.returncode == (5 if degraded else 0), result.stderr[-3000:]
    assert served["500"] + served["429"] > 0 and served["garbage"] > 0 and served["hung"] > 0
    records = [json.loads(line) for line in (tmp_path / kind / "results.jsonl").read_text().splitlines()]
    assert len(records) == meta["summary"]["n_items"] == meta["config"].get("n_tests", meta["config"].get("n_samples"))
    failures = 0
    for record in records:
        for entry in record["metrics"].values():
            verdict = entry["verdict"]
            assert verdict["state"] in ("grade", "null", "failure")
            if verdict["state"] == "failure":
                failures += 1
                assert verdict["failure_kind"] in KINDS and verdict.get("message")
                assert entry.get("outcome", "failure") == "failure"  # never counted as a wrong grade
            elif "outcome" in entry:
                assert entry["outcome"] in ("pass", "wrong_grade")
    faulty_calls = [
        c
        for r in records
        for e in r["metrics"].values()
        for c in e.get("calls", [])
        if "error" in c or c.get("unusable")
    ]
    assert faulty_calls  # the injected faults reached the records (a re-asked reply, a failed call)
    recount = summarize([ItemRecord.from_json(r) for r in records], meta["kind"])
    assert recount == Summary.from_json(meta["summary"], meta["kind"])  # run.json's figures are results.jsonl's
    if failures:
        assert "calls failed:" in result.stderr.strip().splitlines()[-1]
    if degraded:
        assert result.stderr.strip().splitlines()[-1].startswith("judgelab: degraded run: ")


def cached_replies(cache):
    """Replies in the cache file so far: 0 until the run has created the file and its table."""
    if not cache.exists():
        return 0
    db = sqlite3.connect(cache)
    try:
        return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    except sqlite3.OperationalError:  # the file exists, the table not yet
        return 0
    finally:
        db.close()


def test_kill_9_then_rerun_makes_no_completed_call_again(tmp_path):
    with stub_server(latency_ms=150, max_concurrency=4) as base:
        command, env = cli(base, tmp_path, "--limit", "24", "--concurrency", "4", out="first")
        process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cache = tmp_path / "cache.sqlite"
        deadline = time.monotonic() + hang_guard(120)
        done = 0
        while time.monotonic() < deadline and done < 20:
            time.sleep(0.2)
            done = cached_replies(cache)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        recorded = cached_replies(cache)
        assert recorded >= 20
        before = settled_requests(base)  # requests the killed client left in flight still reach the server
        result = run(base, tmp_path, "--limit", "24", "--concurrency", "4", out="second")
        made = stats(base)["requests"] - before
    assert result.returncode == 0, result.stderr[-3000:]
    meta = json.loads((tmp_path / "second" / "run.json").read_text())
    runtime = meta["usage"]
    assert runtime["cached_calls"] >= recorded - 4  # the calls that completed came from the cache ...
    assert made == runtime["calls"] - runtime["cached_calls"]  # ... and only the rest reached the server
    assert meta["summary"]["n_items"] == 24


def settled_requests(base: str) -> int:
    """The stub's request count once it has stopped moving (read twice a second apart, up to a hang guard)."""
    deadline = time.monotonic() + hang_guard(60)
    last, now = -1, stats(base)["requests"]
    while now != last and time.monotonic() < deadline:
        time.sleep(1.0)
        last, now = now, stats(base)["requests"]
    return int(now)


def test_a_planted_api_key_appears_in_no_file_the_run_writes(tmp_path):
    with stub_server(latency_ms=5, garbage_rate=0.2) as base:
        result = run(base, tmp_path, "--limit", "4", "--extra", json.dumps({"api_key": FAKE_KEY}))
    assert result.returncode == 0, result.stderr[-3000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "cache.sqlite" for p in written) and any(p.name == "run.json" for p in written)
    for path in written:
        assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in result.stdout + result.stderr


def test_embedding_calls_are_retried_on_server_errors():
    import asyncio

    from judges.calls.runtime import RuntimeSettings
    from judges.rag.embeddings import LiteLLMEmbedder

    texts = [f"sentence number {i}" for i in range(6)]
    with stub_server(latency_ms=1, error_rate=0.5, seed=1) as base:
        embedder = LiteLLMEmbedder(
            "openai/stub-embed",
            api_base=base,
            retries=RuntimeSettings(max_attempts=6, backoff_initial_s=0.01, backoff_max_s=0.05),
        )
        os.environ.setdefault("OPENAI_API_KEY", "sk-fake")

        async def each():
            return [await embedder.embed([t]) for t in texts]

        rows = asyncio.run(each())
        served = stats(base)
    assert all(r.shape == (1, 32) for r in rows)
    assert embedder.retried > 0  # failures got past LiteLLM's own two retries, and ours took over
    assert served["embeddings"] == len(texts)  # every text embedded once, after its failed tries
