"""The lean client (direct HTTP to OpenAI-compatible endpoints) against the stub: the same records, failure kinds,
retry decisions and prices as the LiteLLM path; a fully cached run imports neither client."""

import asyncio
import os
import socket
import subprocess
import sys

import pytest
from conftest import ROOT, hang_guard
from stub import stats, stub_server

from judges.api import load_tests, run_unit_tests
from judges.calls.backend import CallError, CompletionRequest
from judges.calls.litellm_backend import LiteLLMBackend
from judges.calls.openai_http import OpenAIHTTPBackend, http_error
from judges.types import FailureKind

PROMPT = ({"role": "user", "content": 'Grade it. "usefulness": 0 or 1. ' * 10},)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(backend, request):
    async def once():
        try:
            return await backend.complete(request)
        finally:
            closer = getattr(backend, "aclose", None)
            if closer is not None:
                await closer()

    return asyncio.run(once())


def outcome(backend, request):
    """(kind, retryable, endpoint problem) of a failing call, or the reply."""
    try:
        return call(backend, request)
    except CallError as err:
        return err.kind, err.retryable, err.endpoint_problem


def both(base, **kwargs):
    return (
        OpenAIHTTPBackend(api_base=base, api_key="sk-lean-test-key", **kwargs),
        LiteLLMBackend(api_base=base, api_key="sk-lean-test-key", **kwargs),
    )


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in ("latency_s", "call")}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def test_the_lean_and_the_litellm_paths_give_identical_records_for_the_same_stub_replies(tmp_path):
    tests = load_tests(ROOT / "unit_tests" / "test.jsonl", limit=6)
    with stub_server(latency_ms=2) as base:
        runs = {
            client: run_unit_tests(tests, "openai/stub", api_base=base, client=client, cache_mode="off")
            for client in ("lean", "litellm")
        }
    lean, litellm = (without_timing([r.to_json() for r in runs[c].records]) for c in ("lean", "litellm"))
    assert lean == litellm
    assert runs["lean"].usage == runs["litellm"].usage and runs["lean"].usage.prompt_tokens > 0


def test_logprobs_usage_fingerprint_and_price_match_litellm():
    request = CompletionRequest("openai/gpt-4o-mini", PROMPT, {"logprobs": True, "top_logprobs": 2, "max_tokens": 1})
    with stub_server(latency_ms=1) as base:
        lean, litellm = (call(backend, request) for backend in both(base))
    assert lean.top_logprobs == litellm.top_logprobs and set(lean.top_logprobs[0]) == {"yes", "no"}
    for field in ("text", "prompt_tokens", "completion_tokens", "model_version", "finish_reason"):
        assert getattr(lean, field) == getattr(litellm, field), field
    assert lean.cost == pytest.approx(litellm.cost, rel=1e-9) and lean.cost > 0


@pytest.mark.parametrize(
    "flags, expected",
    [
        ({"status": 401}, (FailureKind.API_ERROR, False, "auth")),
        ({"status": 403}, (FailureKind.API_ERROR, False, "auth")),
        ({"model": "another-model"}, (FailureKind.API_ERROR, False, "not_found")),
        ({"status": 500}, (FailureKind.API_ERROR, True, None)),
        ({"status": 503}, (FailureKind.API_ERROR, True, None)),
        ({"status": 429}, (FailureKind.API_ERROR, True, None)),
        ({"status": 400}, (FailureKind.API_ERROR, False, None)),
    ],
)
def test_http_errors_map_to_the_same_failure_kinds_as_litellm(flags, expected):
    request = CompletionRequest("openai/stub", PROMPT, {"temperature": 0})
    with stub_server(latency_ms=1, **flags) as base:
        lean, litellm = (outcome(backend, request) for backend in both(base))
    assert lean == litellm == expected


def test_a_refused_port_is_a_connection_problem_and_a_hung_server_a_retryable_timeout():
    request = CompletionRequest("openai/stub", PROMPT, {})
    refused = f"http://127.0.0.1:{free_port()}/v1"
    lean, litellm = (outcome(backend, request) for backend in both(refused))
    assert lean == litellm == (FailureKind.API_ERROR, True, "connection")
    with stub_server(latency_ms=1, hang_rate=1.0) as base:
        lean, litellm = (outcome(backend, request) for backend in both(base, timeout_s=0.5))
    assert lean == litellm == (FailureKind.TIMEOUT, True, None)


def test_retry_after_is_read_and_an_echoed_key_is_masked():
    err = http_error(429, b'{"error": {"message": "slow down"}}', {"retry-after": "7"})
    assert err.retryable and err.retry_after == 7.0 and "RateLimitError" in str(err)
    request = CompletionRequest("openai/stub", PROMPT, {})
    key = "sk-lean-PLANTED-echo-key-1234"
    with stub_server(latency_ms=1, echo_auth_rate=1.0) as base:
        with pytest.raises(CallError) as caught:
            call(OpenAIHTTPBackend(api_base=base, api_key=key), request)
    assert key not in str(caught.value) and "***" in str(caught.value)


def test_two_deployments_share_the_calls_and_a_refused_one_is_routed_around(tmp_path):
    tests = load_tests(ROOT / "unit_tests" / "test.jsonl", limit=8)
    refused = f"http://127.0.0.1:{free_port()}/v1"
    with stub_server(latency_ms=20) as first, stub_server(latency_ms=20) as second:
        shared = run_unit_tests(tests, "openai/stub", api_base=[first, second], cache_mode="off", concurrency=4)
        counts = [stats(first, reset=True)["requests"], stats(second, reset=True)["requests"]]
        routed = run_unit_tests(tests, "openai/stub", api_base=[refused, first], cache_mode="off", concurrency=4)
        served = stats(first)["requests"]
    assert shared.stop_reason is None and sum(counts) == shared.usage.calls and min(counts) > 0
    assert routed.stop_reason is None and routed.usage.failed_calls == 0
    assert served == routed.usage.calls == shared.usage.calls


CACHED_RUN = """
import sys
from judges.api import load_tests, run_unit_tests
tests = load_tests(sys.argv[1], limit=8)
run = run_unit_tests(tests, "openai/stub", api_base=sys.argv[2], cache=sys.argv[3], out=sys.argv[4])
assert run.stop_reason is None and run.usage.cached_calls == run.usage.calls > 0, run.usage
print(",".join(m for m in ("litellm", "aiohttp", "openai", "tqdm", "pandas", "matplotlib") if m in sys.modules))
"""


def test_a_fully_cached_run_never_imports_litellm(tmp_path):
    """The second run's endpoint (the same, now stopped) refuses connections: every reply must come from the cache
    (keyed by that endpoint), with no client."""
    cache = tmp_path / "cache.sqlite"
    tests = load_tests(ROOT / "unit_tests" / "test.jsonl", limit=8)
    with stub_server(latency_ms=1) as base:
        first = run_unit_tests(tests, "openai/stub", api_base=base, cache=str(cache))
    assert first.usage.calls > 0 and first.usage.cached_calls == 0
    args = [str(ROOT / "unit_tests" / "test.jsonl"), base, str(cache), str(tmp_path / "run")]
    result = subprocess.run(
        [sys.executable, "-c", CACHED_RUN, *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=hang_guard(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == ""  # none of the heavy modules was imported
