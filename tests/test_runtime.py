"""The call runtime: retries on retryable errors only, cache hits, replay misses, no secrets on disk."""

import asyncio

import pytest

from judges.calls.backend import CallError, CompletionRequest
from judges.calls.cache import CacheMode, ReplyCache
from judges.calls.runtime import CallRuntime, RuntimeSettings
from judges.calls.scripted import ScriptedBackend
from judges.errors import EndpointUnusable, ReplayMiss
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


def test_a_first_failure_is_decided_on_like_any_later_one():
    once = RuntimeSettings(backoff_initial_s=0.0, backoff_max_s=0.0, max_attempts=1)
    backend = ScriptedBackend([CallError(FailureKind.API_ERROR, "503", retryable=True)])
    runtime = CallRuntime(backend, None, once)
    with pytest.raises(CallError, match="503"):
        asyncio.run(runtime.call(REQUEST))
    assert (len(backend.requests), runtime.usage.retries, runtime.usage.failed_calls) == (1, 0, 1)

    backend = ScriptedBackend(
        [CallError(FailureKind.TIMEOUT, "slow", retryable=True), CallError(FailureKind.API_ERROR, "400")]
    )
    runtime = CallRuntime(backend, None, FAST)
    runtime._answered = True
    with pytest.raises(CallError, match="400"):
        asyncio.run(runtime.call(REQUEST))
    assert (len(backend.requests), runtime.usage.retries, runtime.usage.failed_calls) == (2, 1, 1)
    assert runtime.usage.failures == {"api_error": 1}


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
    runtime._answered = True  # the endpoint answered earlier calls: this one alone timed out
    with pytest.raises(CallError) as err:
        asyncio.run(runtime.call(REQUEST))
    assert err.value.kind is FailureKind.TIMEOUT


def test_a_timeout_before_anything_answered_makes_the_endpoint_unusable_after_one_timeout():
    """A hung server costs one timeout, not timeout x attempts: nothing has ever answered, so it is not retried."""

    class Hung:
        calls = 0

        async def complete(self, request):
            Hung.calls += 1
            await asyncio.sleep(5)

    runtime = CallRuntime(Hung(), None, RuntimeSettings(timeout_s=0.05, max_attempts=4, backoff_initial_s=0))
    with pytest.raises(EndpointUnusable, match="no reply within 0.05 s"):
        asyncio.run(runtime.call(REQUEST))
    assert Hung.calls == 1


def test_the_first_calls_failing_the_same_way_make_the_endpoint_unusable():
    runtime = CallRuntime(
        ScriptedBackend(lambda r: CallError(FailureKind.API_ERROR, "HTTP 500", retryable=True)),
        None,
        RuntimeSettings(max_attempts=2, backoff_initial_s=0, backoff_max_s=0),
    )

    async def three():
        for _ in range(3):
            try:
                await runtime.call(REQUEST)
            except CallError:
                continue

    with pytest.raises(EndpointUnusable, match="HTTP 500"):
        asyncio.run(three())
    assert runtime.usage.failures == {"api_error": 3} and runtime.usage.retries == 3


def test_an_auth_error_stops_at_once_even_after_replies():
    replies = iter(["ok", CallError(FailureKind.API_ERROR, "401 invalid key", endpoint_problem="auth")])
    runtime = CallRuntime(ScriptedBackend(lambda r: next(replies)), None, FAST)
    asyncio.run(runtime.call(REQUEST))
    with pytest.raises(EndpointUnusable, match="401 invalid key"):
        asyncio.run(runtime.call(CompletionRequest("m", ({"role": "user", "content": "other"},))))


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


def test_a_slow_first_call_of_a_local_server_is_retried_not_taken_for_a_hung_endpoint():
    """A local llama.cpp server already seen ready may answer its cold first call slowly on a loaded machine."""
    replies = iter([CallError(FailureKind.TIMEOUT, "no reply within 1 s", retryable=True), "ok"])
    settings = RuntimeSettings(max_attempts=2, backoff_initial_s=0, backoff_max_s=0, early_timeout_stops=False)
    runtime = CallRuntime(ScriptedBackend(lambda r: next(replies)), None, settings)
    assert asyncio.run(runtime.call(REQUEST)).text == "ok" and runtime.usage.retries == 1
