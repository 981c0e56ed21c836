"""Executors: rows keyed by the reply cache key, the provider batch path end to end against the stub's batch API
(records equal to the online run's, failed lines as failure verdicts, a killed run resumed without a second
submission), and a local run that never imports Ray."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, hang_guard
from stub import comparable, read_records, stats, stub_server
from stub_server import prompt_reply

from judges.api import grade_samples, load_samples
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.runtime import CallRuntime
from judges.calls.scripted import ScriptedBackend
from judges.config.judge import JudgeConfig
from judges.executors.batch_files import chunks
from judges.executors.rows import Row
from judges.executors.settle import collect
from judges.grading.grade_task import GradeTask
from judges.judging.factory import open_judge
from judges.types import FailureKind, VerdictState

TESTS = str(ROOT / "unit_tests" / "test.jsonl")
JUDGE = "openai/gpt-4o-mini"  # priced in LiteLLM's table, batch prices included; served here by the stub


def judgelab(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "JUDGELAB_BATCH_POLL_S": "0.2",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "judges.cli.main", *args],
        env=env,
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def start_evaluate(base: str, tmp: Path, name: str, *extra: str, limit: int = 6) -> subprocess.Popen[str]:
    """`judgelab evaluate` of the first `limit` test samples, its cache and run folder named `name` under `tmp`."""
    return judgelab(
        "evaluate",
        TESTS,
        "--limit",
        str(limit),
        "--judge",
        JUDGE,
        "--api-base",
        base,
        "--quiet",
        "--cache",
        str(tmp / f"{name}.sqlite"),
        "--out",
        str(tmp / name),
        *extra,
        cwd=tmp,
    )


def evaluate(base: str, tmp: Path, name: str, *extra: str, limit: int = 6) -> tuple[int, str]:
    process = start_evaluate(base, tmp, name, *extra, limit=limit)
    _, err = process.communicate(timeout=hang_guard())
    return process.returncode, err


def test_a_rows_custom_id_is_the_cache_key_the_run_reads(tmp_path):
    samples = load_samples(TESTS, 3)
    cache = ReplyCache(tmp_path / "c.sqlite")
    options = JudgeConfig(model="openai/stub", api_base="http://127.0.0.1:9/v1", cache=str(tmp_path / "c.sqlite"))
    with open_judge(options) as session:
        task = GradeTask(samples, session.judge)
        rows = asyncio.run(collect(task.items, task, session.runtime, cache))
    assert len(rows) == 6  # relevancy and completeness of three samples: the steps that wait on nothing
    for key, row in rows.items():
        assert key == row.custom_id == row.request().cache_key() == Row.from_json(row.to_json()).custom_id
    # the same samples judged in the run: each row's custom_id is a key the run's calls were cached under
    runtime = CallRuntime(ScriptedBackend(lambda r: prompt_reply({"messages": list(r.messages)})[1]), cache)
    with open_judge(options) as session:
        session.judge.runtime = runtime
        for _, sample in samples:
            asyncio.run(session.judge.judge(sample))
    stored = {k for (k,) in cache._db.execute("SELECT key FROM replies")}  # type: ignore[union-attr]
    assert set(rows) <= stored and len(stored) > len(rows)


def test_batch_files_keep_one_model_each_and_the_limits():
    rows = [Row(f"id{i}", "m1" if i % 3 else "m2", ({"role": "user", "content": "x" * 50},), {}) for i in range(10)]
    made = list(chunks(rows, lambda row: {"model": row.model, "messages": list(row.messages)}, max_lines=3))
    assert all(len({row.model for row in c.rows}) == 1 and len(c.rows) <= 3 for c in made)
    assert sorted(r.custom_id for c in made for r in c.rows) == sorted(r.custom_id for r in rows)
    assert [(c.model, len(c.rows)) for c in made] == [("m2", 3), ("m2", 1), ("m1", 3), ("m1", 3)]
    line = json.loads(made[0].lines[0])
    assert line == {"custom_id": "id0", "method": "POST", "url": "/v1/chat/completions", "body": line["body"]}
    one_line = len(made[0].lines[0])
    by_bytes = list(
        chunks(rows, lambda row: {"model": row.model, "messages": list(row.messages)}, max_bytes=2 * one_line + 1)
    )
    assert all(c.size <= 2 * one_line + 1 for c in by_bytes) and sum(len(c.rows) for c in by_bytes) == 10


def test_batch_run_equals_the_online_run_and_costs_batch_prices(tmp_path):
    with stub_server(latency_ms=1, batch_delay_s=0.3) as base:
        assert evaluate(base, tmp_path, "online")[0] == 0
        online_calls = stats(base, reset=True)["requests"]
        code, err = evaluate(base, tmp_path, "batch", "--executor", "batch")
        assert code == 0, err[-2000:]
        counts = stats(base)
    assert "requests" not in counts  # nothing was called online
    assert counts["batch_lines"] == online_calls and counts["batches_created"] == 2  # two rounds: relevancy, then
    assert comparable(read_records(tmp_path / "batch")) == comparable(read_records(tmp_path / "online"))
    online = json.loads((tmp_path / "online" / "run.json").read_text())["usage"]
    batch = json.loads((tmp_path / "batch" / "run.json").read_text())["usage"]
    assert batch["calls"] == online["calls"] and batch["cached_calls"] == 0
    assert batch["cost"] == pytest.approx(online["cost"] / 2)  # gpt-4o-mini's batch prices are half its online ones
    ledger = json.loads((tmp_path / "batch" / "batches.json").read_text())["batches"]
    assert [b["status"] for b in ledger] == ["completed", "completed"] and all(b["batch_id"] for b in ledger)


def test_a_failed_batch_line_is_a_failure_verdict_with_its_kind(tmp_path):
    with stub_server(latency_ms=1, batch_delay_s=0.2, batch_fail_rate=0.3) as base:
        # a third of the lines fail: degraded by the default --fail-on-error, so it is lifted here
        code, err = evaluate(base, tmp_path, "failing", "--executor", "batch", "--fail-on-error", "1", limit=8)
        assert code == 0, err[-2000:]
        assert "requests" not in stats(base)  # a failed line is not called again online
        records = read_records(tmp_path / "failing")
        failed = [m for r in records for m in r.metrics.values() if m.verdict.state is VerdictState.FAILURE]
        direct = [m for m in failed if m.verdict.failure_kind is FailureKind.API_ERROR]
        assert direct and all("batch" in (m.verdict.message or "") for m in direct)
        assert all(m.calls[-1]["error"] == "api_error" for m in direct)
        cache = ReplyCache(tmp_path / "failing.sqlite", CacheMode.READ_ONLY)
        (stored,) = cache._db.execute("SELECT COUNT(*) FROM replies").fetchone()  # type: ignore[union-attr]
        cache.close()
        answered = [c for r in records for m in r.metrics.values() for c in m.calls if "reply" in c]
        assert stored == len(answered)  # the failed lines were not cached as replies
        # asked to, the run calls the failed lines again online
        code, err = evaluate(base, tmp_path, "failing", "--executor", "batch", "--batch-retry", limit=8)
        assert code == 0, err[-2000:]
        assert stats(base)["requests"] >= len(direct)
        again = read_records(tmp_path / "failing")
        assert not any(m.verdict.state is VerdictState.FAILURE for r in again for m in r.metrics.values())


def test_a_batch_run_killed_while_polling_resumes_without_submitting_again(tmp_path):
    ledger = tmp_path / "resume.sqlite.batches" / "batches.json"
    with stub_server(latency_ms=1, batch_delay_s=3) as base:
        process = start_evaluate(base, tmp_path, "resume", "--executor", "batch")
        deadline = time.monotonic() + hang_guard(60)
        while not (ledger.is_file() and '"batch_id": "batch_' in ledger.read_text()):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)  # while it polls the batch it just recorded
        process.wait()
        assert stats(base)["batches_created"] == 1
        code, err = evaluate(base, tmp_path, "resume", "--executor", "batch")
        assert code == 0, err[-2000:]
        assert "resuming 1 batch" in err
        counts = stats(base)
        assert counts["batches_created"] == 2  # the first polled again; the second for the steps it unlocked
        assert evaluate(base, tmp_path, "online")[0] == 0
        assert counts["batch_lines"] == stats(base)["requests"]  # every row submitted once
    assert comparable(read_records(tmp_path / "resume")) == comparable(read_records(tmp_path / "online"))


def test_a_local_run_imports_neither_ray_nor_an_executor(tmp_path):
    with stub_server(latency_ms=1) as base:
        code = (
            "import sys; from judges.cli.main import main; "
            f"rc = main(['evaluate', {TESTS!r}, '--limit', '2', '--judge', 'openai/stub', '--api-base', {base!r}, "
            f"'--quiet', '--cache', {str(tmp_path / 'c.sqlite')!r}, '--out', {str(tmp_path / 'out')!r}]); "
            "assert rc == 0, rc; "
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.') or m in ("
            "'judges.executors.batch', 'judges.executors.batch_api', 'judges.executors.ray_exec', "
            "'judges.executors.ray_worker', 'judges.executors.openers')))"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test"}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=hang_guard()
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_executor_options_are_checked_before_any_call(tmp_path):
    from judges.errors import ConfigError

    samples = load_samples(TESTS, 1)
    with pytest.raises(ConfigError, match="executor must be one of local, batch, ray, got 'spark'"):
        grade_samples(samples, "openai/stub", executor="spark", cache=str(tmp_path / "c"))
    with pytest.raises(ConfigError, match="a local judge runs with local or ray"):
        grade_samples(samples, "local/smollm2-135m", executor="batch", cache=str(tmp_path / "c"))
    with pytest.raises(ConfigError, match="needs --cache-mode read-write"):
        grade_samples(samples, "openai/stub", api_base="http://127.0.0.1:9/v1", executor="ray", cache_mode="off")


def test_batch_prices_come_from_the_table_else_half_the_online_price():
    from judges.calls.prices import call_cost
    from judges.executors.batch_prices import batch_cost, price_basis

    assert batch_cost("gpt-4o-mini", 1000, 100) == pytest.approx(1000 * 7.5e-08 + 100 * 3e-07)
    haiku = "claude-3-5-haiku-20241022"  # the table lists no batch price for it
    assert call_cost([haiku], 1000, 100) > 0
    assert batch_cost(haiku, 1000, 100) == pytest.approx(call_cost([haiku], 1000, 100) / 2)
    assert price_basis(haiku).startswith("half the online price")


def test_dry_run_shows_the_online_and_the_batch_cost_side_by_side(tmp_path):
    process = judgelab(
        "meta-eval", "--judge", JUDGE, "--limit", "3", "--dry-run", "--cache", str(tmp_path / "c"), cwd=tmp_path
    )
    out, err = process.communicate(timeout=hang_guard())
    assert process.returncode == 0, err[-2000:]
    line = next(line for line in out.splitlines() if line.startswith("cost online"))
    online, batch = (float(part.split("$")[1].split()[0]) for part in line.split(" vs "))
    assert batch == pytest.approx(online / 2, abs=1e-4) and "LiteLLM's batch prices" in line


def test_max_cost_is_checked_before_submitting_a_batch(tmp_path):
    with stub_server(latency_ms=1, batch_delay_s=0.2) as base:
        code, err = evaluate(base, tmp_path, "budget", "--executor", "batch", "--max-cost", "0.0001")
        counts = stats(base)
    assert code == 4, err[-2000:]
    assert "nothing was submitted" in err and "at batch prices" in err
    assert "batches_created" not in counts and "files_uploaded" not in counts


def test_the_litellm_batch_functions_drive_the_same_batch_api(tmp_path):
    """--client litellm: acreate_file, acreate_batch, aretrieve_batch and afile_content against the stub."""
    with stub_server(latency_ms=1, batch_delay_s=0.2) as base:
        assert evaluate(base, tmp_path, "online", limit=3)[0] == 0
        stats(base, reset=True)
        code, err = evaluate(base, tmp_path, "litellm", "--executor", "batch", "--client", "litellm", limit=3)
        counts = stats(base)
    assert code == 0, err[-2000:]
    assert counts["batches_created"] == 2 and "requests" not in counts
    assert comparable(read_records(tmp_path / "litellm")) == comparable(read_records(tmp_path / "online"))
