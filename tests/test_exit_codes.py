"""Exit codes and stderr, the same for every command, driven by the stub server: 0 done, 2 bad usage, 3 an
unusable endpoint (within 15 s of the first failures, one line naming model, endpoint and error), 4 the budget."""

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import ROOT, hang_guard
from stub import stats, stub_server

TESTS = str(ROOT / "unit_tests" / "test.jsonl")
CONCURRENCY = 8  # JudgeConfig.concurrency's default: calls in flight at once


def judgelab(*args, cwd, timeout=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout or hang_guard(),
    )
    return result, time.monotonic() - started


def meta_eval(base, tmp_path, *extra, judge="openai/stub"):
    return judgelab(
        "meta-eval",
        "--judge",
        judge,
        "--api-base",
        base,
        "--tests",
        TESTS,
        "--limit",
        "16",
        "--out",
        str(tmp_path / "run"),
        "--cache",
        str(tmp_path / "c.sqlite"),
        *extra,
        cwd=tmp_path,
    )


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


PROGRESS = re.compile(r"^(unit tests|grade|metrics): \d+/\d+ (tests|samples), ")


def one_line(stderr):
    """The one line an error takes on stderr (progress lines, printed when stderr is not a terminal, aside)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not PROGRESS.match(line)]
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_refused_port_exits_3_at_once_naming_model_endpoint_and_error(tmp_path):
    base = f"http://127.0.0.1:{free_port()}/v1"
    result, _ = meta_eval(base, tmp_path)
    assert result.returncode == 3
    line = one_line(result.stderr)
    assert "openai/stub" in line and base in line and "Connection error" in line
    assert result.stdout == ""  # no empty report above the one line: the run never reached its endpoint
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["stop_reason"] == "endpoint_unusable" and meta["summary"]["n_items"] == 0


@pytest.mark.parametrize(
    "flags, words", [({"status": 401}, "AuthenticationError"), ({"model": "another-model"}, "does not exist")]
)
def test_a_wrong_key_or_an_unknown_model_exits_3_after_the_first_reply(flags, words, tmp_path):
    with stub_server(latency_ms=5, **flags) as base:
        result, _ = meta_eval(base, tmp_path)
        calls = stats(base)["chat"]
    assert result.returncode == 3
    assert calls <= 2 * CONCURRENCY  # stopped after the first replies, not 64 calls x 4 attempts
    line = one_line(result.stderr)
    assert words in line and base in line


def test_a_hung_server_costs_one_timeout(tmp_path):
    with stub_server(latency_ms=5, hang_rate=1.0) as base:
        result, _ = meta_eval(base, tmp_path, "--timeout", "3")
        hung = stats(base)["hung"]
    assert result.returncode == 3 and "no reply within 3 s" in one_line(result.stderr)
    assert hung <= 2 * CONCURRENCY  # one wave of timeouts, not timeout x attempts x tests (256 calls)


def test_a_server_failing_every_call_the_same_way_exits_3_within_15_s(tmp_path):
    with stub_server(latency_ms=5, status=500) as base:
        result, _ = meta_eval(base, tmp_path)
        calls = stats(base)["chat"]
    assert result.returncode == 3 and "injected status 500" in one_line(result.stderr)
    assert calls < 64  # stopped before one call per test and metric, let alone their retries (256)


def test_30_percent_5xx_is_retried_and_the_run_completes(tmp_path):
    with stub_server(latency_ms=5, error_rate=0.3, seed=2) as base:
        result, _ = meta_eval(base, tmp_path)
    assert result.returncode == 0, result.stderr
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["stop_reason"] is None and meta["summary"]["n_items"] == 16 and meta["usage"]["retries"] > 0


@pytest.mark.parametrize("command", ["meta-eval", "evaluate"])
def test_the_budget_stops_with_exit_4_keeping_every_finished_item_and_paid_reply(command, tmp_path):
    """A priced model (gpt-4o-mini's price from LiteLLM's map) behind the stub; regression: evaluate crashed."""
    with stub_server(latency_ms=5) as base:
        args = (
            ["meta-eval", "--tests", TESTS, "--limit", "16"]
            if command == "meta-eval"
            else ["evaluate", TESTS, "--limit", "16"]
        )
        result, _ = judgelab(
            *args,
            "--judge",
            "gpt-4o-mini",
            "--api-base",
            base,
            "--out",
            str(tmp_path / "run"),
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--concurrency",
            "1",
            "--max-cost",
            "0.002",
            cwd=tmp_path,
        )
    assert result.returncode == 4, result.stderr
    assert "--max-cost 0.002 USD reached" in one_line(result.stderr)
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    assert meta["stop_reason"] == "budget" and 1 <= len(lines) == meta["summary"]["n_items"] < 16
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        cached = db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
    assert cached == meta["usage"]["calls"] >= meta["summary"]["usage"]["calls"]  # every paid reply is cached


@pytest.mark.parametrize(
    "args",
    [
        ["meta-eval", "--max-cost", "-1"],
        ["evaluate", TESTS, "--max-cost", "0"],
        ["metrics", "--metrics", "hit_rate", "--data", TESTS, "--max-cost", "-0.5"],
    ],
)
def test_a_non_positive_budget_is_bad_usage(args, tmp_path):
    result, _ = judgelab(*args, cwd=tmp_path)
    assert result.returncode == 2 and "--max-cost must be a positive number" in one_line(result.stderr)
