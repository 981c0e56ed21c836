"""The reply cache keys a reply by its endpoint too (the API bases without credentials): two servers of one model
name never share replies; the provider's own endpoint keys as caches written before did, so they still answer."""

from __future__ import annotations

import hashlib
import json

from conftest import ROOT
from stub import stats, stub_server

from judges.api import load_tests, run_unit_tests
from judges.calls.backend import CompletionRequest

REQUEST = CompletionRequest("openai/stub", ({"role": "user", "content": "Grade this."},), {"temperature": 0.0})


def test_the_provider_endpoint_keys_a_reply_as_before_and_any_other_endpoint_apart():
    from judges.calls.endpoint_auth import cache_endpoint

    # the key every cache written before this change holds: model, messages and parameters only
    before = {"model": "openai/stub", "messages": [{"role": "user", "content": "Grade this."}]}
    payload = json.dumps({**before, "params": {"temperature": 0.0}}, sort_keys=True, ensure_ascii=False)
    old_key = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    assert REQUEST.cache_key() == REQUEST.cache_key(cache_endpoint([])) == old_key
    local = REQUEST.cache_key(cache_endpoint(["http://127.0.0.1:8000/v1"]))
    hosted = REQUEST.cache_key(cache_endpoint(["https://gw.example/v1"]))
    assert len({old_key, local, hosted}) == 3


def test_the_endpoint_of_the_key_has_no_credentials_and_one_spelling():
    from judges.calls.endpoint_auth import cache_endpoint

    plain = "http://gw.example:8000/v1?api-version=2"
    assert cache_endpoint([plain]) == plain
    # userinfo, credential query values (any name not on the allow-list), fragment, case of host, trailing slash
    for spelled in [
        "http://user:pw@gw.example:8000/v1?api-version=2",
        "http://GW.Example:8000/v1/?api-version=2&key=abc&jwt=x.y.z&zzz=1#frag",
        "HTTP://gw.example:8000/v1?jwt=other&api-version=2",
        "http://gw.example:8000/v1?api-version=2;token=abc",
    ]:
        assert cache_endpoint([spelled]) == plain, spelled
    assert cache_endpoint(["http://gw.example:8000/v1?api-version=3"]) != plain
    assert cache_endpoint(["http://b/v1", "http://a/v1/"]) == cache_endpoint(["http://a/v1", "http://b/v1"])


def test_two_endpoints_serving_one_model_name_do_not_share_replies(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    tests = load_tests(ROOT / "unit_tests" / "train.jsonl", limit=2)
    cache = tmp_path / "c.sqlite"

    def run(base: str, name: str):
        return run_unit_tests(tests, "openai/stub", api_base=base, cache=cache, out=tmp_path / name)

    # the same model name served twice: the second server pads every justification (another reply, same grades)
    with stub_server(latency_ms=1) as first, stub_server(latency_ms=1, reply_bytes=3000) as second:
        one = run(first, "one")
        two = run(second, "two")
        served = stats(second)["chat"]
        # the same endpoint spelled with a trailing slash and credentials: its replies, from the cache
        again = run(second.replace("http://", "http://user:pw@") + "/?key=abcdefgh", "again")
        assert stats(second)["chat"] == served
    assert one.usage and two.usage and again.usage
    assert one.usage.cached_calls == 0 and one.usage.calls > 0
    assert two.usage.cached_calls == 0 and served == two.usage.calls == one.usage.calls
    assert again.usage.cached_calls == again.usage.calls == two.usage.calls
    replies = {name: [c["reply"] for r in run.records for c in r.calls()] for name, run in [("1", one), ("2", two)]}
    assert all(len(reply) < 3000 for reply in replies["1"]) and all(len(reply) >= 3000 for reply in replies["2"])
