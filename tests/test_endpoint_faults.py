"""Each endpoint fault (a hang, 429 with Retry-After, 5xx, a body cut off or not JSON, a reply over 1 MB) leaves a
complete, readable run folder and the documented exit code: `judgelab evaluate` (and meta-eval) through the CLI
against the loopback stub serving that fault."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard
from stub import stats, stub_server

from judges.files.jsonl import max_record_bytes
from judges.runs.run import STOP_EXIT_CODES, Run

SAMPLES = ROOT / "examples" / "samples.jsonl"
TESTS = ROOT / "unit_tests" / "test.jsonl"
OVER_A_MEGABYTE = 1_100_000


def judgelab(command, base, folder, *extra, limit=2):
    """One CLI run against the stub, one call at a time (so which request meets the fault is fixed)."""
    data = ["evaluate", str(SAMPLES)] if command == "evaluate" else ["meta-eval", "--tests", str(TESTS)]
    argv = [
        *data,
        "--limit",
        str(limit),
        "--judge",
        "openai/stub",
        "--api-base",
        base,
        "--out",
        str(folder),
        "--cache",
        str(folder.parent / f"{folder.name}.sqlite"),
        "--concurrency",
        "1",
        "--quiet",
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-stub"}
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *argv],
        env=env,
        capture_output=True,
        text=True,
        cwd=folder.parent,
        timeout=hang_guard(),
    )


def complete_folder(folder, result, stop_reason):
    """The folder of a run that ended with `stop_reason` (None: it finished): results.jsonl loads, run.json says
    why it stopped, summary.md and report.html are there, and the exit code is the one documented for it."""
    run = Run.load(folder)
    records = run.records
    meta = json.loads((folder / "run.json").read_text())
    assert meta["stop_reason"] == stop_reason, result.stderr[-2000:]
    assert result.returncode == STOP_EXIT_CODES.get(stop_reason or "", 0), result.stderr[-2000:]
    assert (folder / "summary.md").is_file() and (folder / "report.html").is_file()
    assert run.summary.n_items == len(records)
    limit = max_record_bytes()
    assert all(len(line.encode()) <= limit for line in (folder / "results.jsonl").read_text().splitlines())
    return run, meta


def test_a_hung_endpoint_stops_within_one_timeout_and_keeps_the_folder(tmp_path):
    with stub_server(latency_ms=1, fault="hang") as base:
        result = judgelab("evaluate", base, tmp_path / "run", "--timeout", "1")
    run, meta = complete_folder(tmp_path / "run", result, "endpoint_unusable")
    assert run.records == []
    assert "no reply within 1 s" in meta["stop_message"]
    assert result.stderr.strip().splitlines()[-1].startswith("judgelab: stopped (endpoint_unusable): judge ")


def test_a_retry_after_within_the_cap_is_waited_and_the_run_finishes(tmp_path):
    with stub_server(latency_ms=1, fault="429", fault_every=3, retry_after=1) as base:
        result = judgelab("evaluate", base, tmp_path / "run")
        served = stats(base)
    run, meta = complete_folder(tmp_path / "run", result, None)
    assert served["fault_429"] >= 1 and meta["usage"]["retries"] == served["fault_429"]
    assert all(not entry.verdict.is_failure for record in run.records for entry in record.metrics.values())


def test_a_retry_after_over_the_cap_stops_the_run_as_an_unusable_endpoint(tmp_path):
    with stub_server(latency_ms=1, fault="429", retry_after=3600) as base:
        result = judgelab("evaluate", base, tmp_path / "run")
        served = stats(base)
    _, meta = complete_folder(tmp_path / "run", result, "endpoint_unusable")
    # the first sample's two first calls, each once: neither is asked again, the wait is over the 60 s judgelab waits
    assert served["fault_429"] == 2 and meta["usage"]["retries"] == 0
    assert (
        "asks to wait 3600 s before the next call (Retry-After), over the 60 s judgelab waits" in meta["stop_message"]
    )


@pytest.mark.parametrize("fault", ["500", "truncated", "invalid_json"])
def test_a_server_error_or_a_broken_body_on_every_call_stops_the_run(fault, tmp_path):
    """The first three calls failing the same way (after their retries, here none) stop the run as unusable."""
    with stub_server(latency_ms=1, fault=fault) as base:
        result = judgelab("evaluate", base, tmp_path / "run", "--max-attempts", "1")
        served = stats(base)
    _, meta = complete_folder(tmp_path / "run", result, "endpoint_unusable")
    # the third failure stops the run; the call queued beside it (its sample asks two at once) may have gone out
    assert served[f"fault_{fault}"] in (3, 4) and meta["usage"]["retries"] == 0
    named = {"500": "HTTP 500", "truncated": "the reply was cut off", "invalid_json": "the reply is not JSON"}[fault]
    assert named in meta["stop_message"]


@pytest.mark.parametrize("fault", ["truncated", "invalid_json"])  # 5xx now and then: tests/test_faults.py
def test_a_broken_body_now_and_then_is_retried_and_the_run_finishes(fault, tmp_path):
    with stub_server(latency_ms=1, fault=fault, fault_every=3) as base:
        result = judgelab("evaluate", base, tmp_path / "run", "--max-attempts", "2")
        served = stats(base)
    run, meta = complete_folder(tmp_path / "run", result, None)
    assert served[f"fault_{fault}"] >= 1 and meta["usage"]["retries"] == served[f"fault_{fault}"]
    assert all(not entry.verdict.is_failure for record in run.records for entry in record.metrics.values())


@pytest.mark.parametrize("command", ["evaluate", "meta-eval"])
def test_a_reply_over_a_megabyte_is_kept_truncated_and_fails_as_oversized(command, tmp_path):
    """Every reply is 1.1 MB: each verdict fails as `oversized` (not parsed, not asked again), each call keeps the
    reply's start and its size, and the run is degraded (exit 5) with a folder that reads back."""
    with stub_server(latency_ms=1, reply_bytes=OVER_A_MEGABYTE) as base:
        result = judgelab(command, base, tmp_path / "run")
        served = stats(base)
    run, meta = complete_folder(tmp_path / "run", result, "degraded")
    assert len(run.records) == 2
    calls = [call for record in run.records for call in record.calls()]
    assert len(calls) == served["chat"] == 4  # relevancy and completeness of each item, each asked once
    for call in calls:
        assert call["unusable"] == "oversized" and call["reply_bytes"] > OVER_A_MEGABYTE
        assert call["reply"].endswith(f"[... truncated by judgelab: the reply was {call['reply_bytes']:,} bytes]")
        assert len(call["reply"]) < 1_200
    kinds = {entry.verdict.failure_kind.value for record in run.records for entry in record.metrics.values()}
    assert kinds == {"oversized", "upstream_failed"}
    assert meta["usage"]["failures"] == {"oversized": 4}
    assert "oversized" in result.stderr.strip().splitlines()[-1]


def test_a_retry_after_is_waited_as_asked_up_to_sixty_seconds():
    """The hint, not the backoff's own bound (30 s), decides the wait; over 60 s it is not waited at all."""
    from types import SimpleNamespace

    from judges.calls.backend import CallError
    from judges.calls.runtime import RuntimeSettings, retrying
    from judges.types import FailureKind

    def waited(hint):
        err = CallError(FailureKind.API_ERROR, "429", retryable=True, retry_after=hint)
        state = SimpleNamespace(outcome=SimpleNamespace(exception=lambda: err))
        policy = retrying(RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0))
        return policy.wait(state), policy.retry(
            SimpleNamespace(outcome=SimpleNamespace(failed=True, exception=lambda: err))
        )

    assert waited(45.0) == (45.0, True)
    assert waited(60.0) == (60.0, True)
    assert waited(3600.0)[1] is False


def test_a_retry_after_over_the_cap_stops_at_the_first_call_unless_another_deployment_is_up():
    import asyncio

    from judges.calls.backend import CallError, CompletionRequest
    from judges.calls.deployments import DeploymentRouter
    from judges.calls.runtime import CallRuntime, RuntimeSettings
    from judges.calls.scripted import ScriptedBackend
    from judges.errors import EndpointUnusable
    from judges.types import FailureKind

    request = CompletionRequest("m", ({"role": "user", "content": "hi"},), {"temperature": 0})
    settings = RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0, max_attempts=3)

    def quota_spent():
        return CallError(FailureKind.API_ERROR, "RateLimitError: HTTP 429", retryable=True, retry_after=3600.0)

    alone = ScriptedBackend([quota_spent(), "ok"])
    with pytest.raises(EndpointUnusable, match=r"asks to wait 3600 s before the next call \(Retry-After\)"):
        asyncio.run(CallRuntime(alone, None, settings).call(request))
    assert len(alone.requests) == 1

    spent, other = ScriptedBackend([quota_spent()]), ScriptedBackend(["ok"])
    router = DeploymentRouter([("spent", spent), ("other", other)], per_deployment=1)
    runtime = CallRuntime(router, None, settings)  # type: ignore[arg-type]
    assert asyncio.run(runtime.call(request)).text == "ok"
    assert (len(spent.requests), len(other.requests), runtime.usage.retries) == (1, 1, 1)


def test_evaluate_says_when_the_judge_gives_every_sample_the_same_grade(tmp_path, monkeypatch, capsys):
    """A scripted judge that grades every sample alike is named, metric by metric, in the printed summary and in
    summary.md; one whose grades vary is not."""
    from conftest import reply, serve_double

    from judges.calls.scripted import ScriptedBackend
    from judges.cli.main import main

    constant = {"answer_relevancy": 5, "completeness": 4, "faithfulness": 1}
    serve_double(monkeypatch, ScriptedBackend(lambda request: reply(request.metric, constant[request.metric])))
    argv = ["evaluate", str(SAMPLES), "--judge", "openai/double", "--cache", str(tmp_path / "c.sqlite")]
    assert main([*argv, "--out", str(tmp_path / "same")]) == 0
    printed = capsys.readouterr().out
    said = [line for line in (tmp_path / "same" / "summary.md").read_text().splitlines() if "onstant judge" in line]
    assert said == [
        "**Near-constant judge:** answer_relevancy: the judge gave 5 to all 5 graded samples: a constant judge "
        "separates nothing.",
        "**Near-constant judge:** completeness: the judge gave 4 to all 5 graded samples: a constant judge "
        "separates nothing.",
        "**Near-constant judge:** faithfulness: the judge gave 1 to all 5 graded samples: a constant judge "
        "separates nothing.",
    ]
    assert all(line in printed for line in said)

    def varied(request):
        text = json.dumps(request.messages)
        grade = 1 + sum(text.encode()) % 5 if request.metric != "faithfulness" else sum(text.encode()) % 2
        return reply(request.metric, grade)

    serve_double(monkeypatch, ScriptedBackend(varied))
    assert main([*argv, "--out", str(tmp_path / "varied"), "--cache-mode", "off"]) == 0
    varied_run = Run.load(tmp_path / "varied")
    assert all(s.graded == 5 and s.top_grade_count < 5 for s in varied_run.summary.metrics.values() if s.graded)
    assert "onstant judge" not in (tmp_path / "varied" / "summary.md").read_text()


def test_the_near_constant_rule():
    """All of at least 3 graded verdicts alike, or at least 95% of at least 20; nothing from an older summary."""
    from judges.records import MetricSummary
    from judges.runs.near_constant import near_constant_line

    def line(graded, count, grade=5.0):
        return near_constant_line("m", MetricSummary(graded=graded, top_grade=grade, top_grade_count=count))

    assert line(3, 3) == "m: the judge gave 5 to all 3 graded samples: a constant judge separates nothing"
    assert line(2, 2) is None
    assert line(20, 19, 0.5) == (
        "m: the judge gave 0.5 to 19 of 20 graded samples (95%): a near-constant judge separates little unless the "
        "samples are that alike"
    )
    assert line(20, 18) is None and line(19, 18) is None
    assert near_constant_line("m", MetricSummary(graded=5)) is None
