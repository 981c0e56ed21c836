"""The call runtime: retries on retryable errors only, cache hits, replay misses, no secrets on disk."""

import asyncio

import pytest

from judges.calls.backend import CallError, CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.errors import ReplayMiss
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.types import FailureKind

FAST = RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0, max_attempts=3)
REQUEST = CompletionRequest("m", ({"role": "user", "content": "hi"},), {"temperature": 0})


def test_retryable_errors_are_retried_then_succeed():
    backend = ScriptedBackend([CallError(FailureKind.API_ERROR, "429", retryable=True), "ok"])
    runtime = CallRuntime(backend, None, FAST)
    assert asyncio.run(runtime.call(REQUEST)).text == "ok"
    assert runtime.usage.retries == 1 and len(backend.requests) == 2


def test_non_retryable_errors_fail_at_once():
    backend = ScriptedBackend([CallError(FailureKind.API_ERROR, "400")])
    runtime = CallRuntime(backend, None, FAST)
    with pytest.raises(CallError):
        asyncio.run(runtime.call(REQUEST))
    assert len(backend.requests) == 1 and runtime.usage.failed_calls == 1


def test_exhausted_retries_raise_the_last_error():
    backend = ScriptedBackend([CallError(FailureKind.API_ERROR, "503", retryable=True)] * 3)
    with pytest.raises(CallError, match="503"):
        asyncio.run(CallRuntime(backend, None, FAST).call(REQUEST))
    assert len(backend.requests) == 3


def test_slow_call_times_out_as_a_timeout_failure():
    class Slow:
        async def complete(self, request):
            await asyncio.sleep(5)

    runtime = CallRuntime(Slow(), None, RuntimeSettings(timeout_s=0.05, max_attempts=1))
    with pytest.raises(CallError) as err:
        asyncio.run(runtime.call(REQUEST))
    assert err.value.kind is FailureKind.TIMEOUT


def test_cache_serves_a_repeat_without_a_call_and_replay_fails_on_a_miss(tmp_path):
    path = tmp_path / "cache.sqlite"
    backend = ScriptedBackend(["first"])
    runtime = CallRuntime(backend, ReplyCache(path), FAST)
    asyncio.run(runtime.call(REQUEST))
    again = asyncio.run(runtime.call(REQUEST))
    assert again.text == "first" and again.cached and len(backend.requests) == 1
    replay = CallRuntime(ScriptedBackend([]), ReplyCache(path, CacheMode.REPLAY), FAST)
    assert asyncio.run(replay.call(REQUEST)).text == "first"
    other = CompletionRequest("m", ({"role": "user", "content": "hi"},), {"temperature": 1})
    with pytest.raises(ReplayMiss):
        asyncio.run(replay.call(other))
