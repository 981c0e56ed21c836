"""Secrets: credential fields and known secret values are masked in every file and stream a run writes."""

import json
import os
import subprocess
import sys

from conftest import ROOT, hang_guard
from hypothesis import given, settings
from hypothesis import strategies as st
from stub import stats, stub_server

from judges.config.judge import JudgeConfig
from judges.secrets import credential_paths, register_secret, scrub, split_credentials

TOP_KEY = "sk-judgelab-TOPLEVEL-planted-4c2e91"
BODY_KEY = "sk-judgelab-EXTRABODY-planted-77ab03"
META_TOKEN = "tok-judgelab-METADATA-planted-5e10d"
ENV_KEY = "sk-judgelab-ENVIRONMENT-planted-9f3a"


def test_scrub_masks_credential_fields_at_any_depth():
    value = {
        "api_key": "abc",
        "params": {"extra_body": {"api_key": "x", "top_k": 3}, "metadata": {"token": "t"}},
        "headers": {"Authorization": "Bearer y"},
        "list": [{"password": "p"}, {"cookie": "c"}],
        "GROQ_API_KEY": "g",
        "max_tokens": 5,
        "prompt_tokens": 7,
        "key": "s1",
        "supporting_keys": ["a"],
    }
    assert scrub(value) == {
        "api_key": "***",
        "params": {"extra_body": {"api_key": "***", "top_k": 3}, "metadata": {"token": "***"}},
        "headers": "***",
        "list": [{"password": "***"}, {"cookie": "***"}],
        "GROQ_API_KEY": "***",
        "max_tokens": 5,
        "prompt_tokens": 7,
        "key": "s1",
        "supporting_keys": ["a"],
    }
    assert value["api_key"] == "abc"  # a copy: the input is untouched


def test_scrub_masks_registered_and_environment_secrets_inside_strings(monkeypatch):
    monkeypatch.setenv("SOMEPROVIDER_API_KEY", ENV_KEY)
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # shorter than 8: not a secret worth masking
    register_secret("registered-secret-value-1")
    text = f"401 from Bearer {ENV_KEY}, body registered-secret-value-1; abc"
    assert scrub({"message": text, "n": [1, text]}) == {
        "message": "401 from Bearer ***, body ***; abc",
        "n": [1, "401 from Bearer ***, body ***; abc"],
    }


def test_nested_extra_credentials_are_sent_but_never_hashed_or_shown():
    options = JudgeConfig(
        extra={
            "top_p": 0.9,
            "extra_body": {"api_key": BODY_KEY, "top_k": 3},
            "metadata": {"token": META_TOKEN},
            "extra_headers": {"X-Key": "h"},
        }
    )
    assert options.generation_extra() == {"top_p": 0.9, "extra_body": {"top_k": 3}, "metadata": {}}
    assert options.connection_extra() == {
        "extra_body": {"api_key": BODY_KEY},
        "metadata": {"token": META_TOKEN},
        "extra_headers": {"X-Key": "h"},
    }
    assert options.public_params()["credentials"] == ["extra_body.api_key", "extra_headers", "metadata.token"]
    assert BODY_KEY not in json.dumps(options.public_params()) and META_TOKEN not in json.dumps(options.params())
    assert split_credentials([1]) == ([1], None) and credential_paths("x") == []


def test_backend_sends_split_credentials_back_in_their_place():
    from judges.calls.litellm_backend import merge_nested

    assert merge_nested(
        {"extra_body": {"top_k": 3}, "top_p": 1}, {"extra_body": {"api_key": "k"}, "api_base": "u"}
    ) == {"extra_body": {"top_k": 3, "api_key": "k"}, "top_p": 1, "api_base": "u"}


def test_planted_secrets_appear_nowhere_a_run_writes_or_prints(tmp_path):
    extra = {"api_key": TOP_KEY, "extra_body": {"api_key": BODY_KEY, "top_k": 2}, "metadata": {"token": META_TOKEN}}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": ENV_KEY}
    with stub_server(latency_ms=5, echo_auth_rate=0.5, seed=2) as base:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "judges.cli.main",
                "meta-eval",
                "--judge",
                "openai/stub",
                "--api-base",
                base,
                "--tests",
                str(ROOT / "unit_tests" / "test.jsonl"),
                "--limit",
                "4",
                "--out",
                str(tmp_path / "run"),
                "--cache",
                str(tmp_path / "cache.sqlite"),
                "--extra",
                json.dumps(extra),
                "--fail-on-error",
                "1",  # half the calls fail on purpose (their error bodies echo the credentials)
            ],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=hang_guard(),
        )
        echoed = stats(base)["echo"]
    assert result.returncode == 0, result.stderr[-3000:]
    assert echoed > 0  # the stub did send the credentials back in error bodies
    rows = (tmp_path / "run" / "results.jsonl").read_text()
    assert "bad request from Bearer ***" in rows  # the echoed error was kept, masked
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"cache.sqlite", "run.json", "results.jsonl", "summary.md"} <= {p.name for p in written}
    for secret in (TOP_KEY, BODY_KEY, META_TOKEN, ENV_KEY):
        for path in written:
            assert secret.encode() not in path.read_bytes(), (secret, path)
        assert secret not in result.stdout + result.stderr


def test_an_error_message_echoing_an_image_keeps_no_image_bytes():
    from judges.calls.openai_http import http_error

    body = json.dumps({"error": {"message": "bad request: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA== rejected"}})
    error = http_error(400, body.encode())
    assert "iVBORw0KGgo" not in str(error)
    assert "data:image/png;base64,[image bytes] rejected" in str(error)


def test_environment_secrets_are_read_at_each_scrub_whatever_the_case_of_their_name(monkeypatch):
    assert scrub({"m": "before lower-case-name-secret-1"}) == {"m": "before lower-case-name-secret-1"}
    monkeypatch.setenv("my_service_password", "lower-case-name-secret-1")
    monkeypatch.setenv("SERVICE_SECRET", "upper-case-name-secret-2")
    monkeypatch.setenv("SERVICE_SECRETS", "not-a-secret-by-its-name-3")
    text = "lower-case-name-secret-1 upper-case-name-secret-2 not-a-secret-by-its-name-3"
    assert scrub({"m": text}) == {"m": "*** *** not-a-secret-by-its-name-3"}


def _plain_scrub(value, secrets):
    """The definition scrub keeps to: every key and string looked at, one by one."""
    from judges.secrets import MASK, is_credential_key

    if isinstance(value, dict):
        return {
            k: MASK if is_credential_key(k, v) and v not in (None, "") else _plain_scrub(v, secrets)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_plain_scrub(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
    return value


_KEYS = st.sampled_from(["key", "api_key", "Token", "headers", "reply", "calls", "s1", "x-auth", 3, "metadata"])
_SECRET = "sk-property-planted-secret-1"
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from(["", "short", _SECRET])
    | st.text(max_size=12).map(lambda t: t + _SECRET[: len(t) % 40]),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(_VALUES, st.booleans())
def test_scrub_masks_exactly_as_looking_at_every_key_and_string(value, with_secret):
    from judges.secrets import scrub_with

    secrets = [_SECRET] if with_secret else []
    assert scrub_with(value, secrets) == _plain_scrub(value, secrets)


def test_mask_url_hides_the_userinfo_and_credential_query_values_and_keeps_the_rest_as_written():
    from judges.secrets import mask_url

    assert mask_url("http://me:pw@host:8000/v1?api-version=1&key=k") == "http://***@host:8000/v1?api-version=1&key=***"
    assert mask_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert mask_url("https://token-only@gw.example/v1/") == "https://***@gw.example/v1/"
    assert mask_url("http://u:p@ss@h/v1") == "http://***@h/v1"  # an unescaped @ in the password: the last one ends it
    assert mask_url("user:pass@host/v1?token=abc#x") == "***@host/v1?token=***#x"  # no scheme
    assert (
        mask_url("https://b.s3.amazonaws.com/o?X-Amz-Credential=AK%2F1&X-Amz-Date=2020&X-Amz-Signature=ab&x=1")
        == "https://b.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Date=***&X-Amz-Signature=***&x=***"
    )
    assert (
        mask_url("https://h/p?api_key=1&apikey=2&access_token=3&sig=4&signature=5&secret=6&password=7&auth=8&code=9")
        == "https://h/p?api_key=***&apikey=***&access_token=***&sig=***&signature=***&secret=***&password=***"
        "&auth=***&code=***"
    )
    assert mask_url("https://h/p#access_token=abc&state=1") == "https://h/p#access_token=***&state=***"
    assert mask_url("http://h/p?key&key=&model=m#a?b") == "http://h/p?key&key=&model=m#a?b"  # nothing to hide
    assert mask_url("http://u:p@[::1/x?KEY=1") == "http://***@[::1/x?KEY=***"  # malformed, masked all the same


def test_scrub_text_masks_every_url_in_a_message():
    from judges.secrets import scrub_text

    message = "POST http://me:pw@host/v1/chat/completions?key=abc failed; see 'https://x/y?token=1&limit=2'."
    assert (
        scrub_text(message)
        == "POST http://***@host/v1/chat/completions?key=*** failed; see 'https://x/y?token=***&limit=2'."
    )


def test_url_credentials_are_registered_as_written_decoded_and_as_their_basic_token():
    from judges.secrets import basic_token, register_url_secrets, scrub_text, split_userinfo

    url = "https://gw-user%40corp:pa%3Ass-word-12@gw.example/v1?api-version=1&key=q%2Bkey-value-1"
    assert split_userinfo(url) == (
        "https://gw.example/v1?api-version=1&key=q%2Bkey-value-1",
        ("gw-user@corp", "pa:ss-word-12"),
    )
    assert split_userinfo("http://h/v1") == ("http://h/v1", None)
    register_url_secrets(url)
    token = basic_token("gw-user@corp", "pa:ss-word-12")
    text = f"echo: pa:ss-word-12 pa%3Ass-word-12 gw-user@corp q+key-value-1 q%2Bkey-value-1 Basic {token} 2024-01-01"
    assert scrub_text(text) == "echo: *** *** *** *** *** Basic *** 2024-01-01"


def test_the_lean_client_sends_the_userinfo_as_basic_only_without_a_key_and_keeps_the_query(monkeypatch):
    from judges.calls.openai_http import OpenAIHTTPBackend
    from judges.secrets import basic_token

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    url = "http://gw-user:gw-password-1@127.0.0.1:9/v1/?api-version=1&key=gw-query-key-1"
    basic = OpenAIHTTPBackend(api_base=url)
    assert basic._headers["Authorization"] == "Basic " + basic_token("gw-user", "gw-password-1")
    assert basic.url("/chat/completions") == "http://127.0.0.1:9/v1/chat/completions?api-version=1&key=gw-query-key-1"
    assert basic.api_base == "http://127.0.0.1:9/v1?api-version=1&key=***"
    keyed = OpenAIHTTPBackend(api_base=url, api_key="sk-given-key-1")
    assert keyed._headers["Authorization"] == "Bearer sk-given-key-1"  # the key wins; the userinfo is not sent
    header = OpenAIHTTPBackend(api_base=url, connection={"extra_headers": {"authorization": "Token t-given-1"}})
    assert header._headers["authorization"] == "Token t-given-1" and "Authorization" not in header._headers


def test_litellm_is_given_the_base_without_credentials_the_basic_header_and_the_query_apart():
    from judges.calls.endpoint_auth import litellm_endpoint
    from judges.secrets import basic_token

    url = "http://gw-user:gw-password-2@127.0.0.1:9/v1?key=gw-query-key-2"
    assert litellm_endpoint({"api_base": url, "api_key": "none"}) == (
        {
            "api_base": "http://127.0.0.1:9/v1",
            "api_key": "none",
            "extra_headers": {"Authorization": "Basic " + basic_token("gw-user", "gw-password-2")},
        },
        [("key", "gw-query-key-2")],
    )
    assert litellm_endpoint({"api_base": url}) == ({"api_base": "http://127.0.0.1:9/v1"}, [("key", "gw-query-key-2")])
    assert litellm_endpoint({"api_key": "k"}) == ({"api_key": "k"}, [])


def test_litellm_refuses_a_query_it_cannot_keep_for_a_provider_that_is_not_openai_compatible():
    import asyncio

    import pytest

    from judges.calls.backend import CompletionRequest
    from judges.calls.litellm_backend import LiteLLMBackend
    from judges.errors import ConfigError

    backend = LiteLLMBackend(api_base="http://127.0.0.1:9/v1?key=gw-query-key-3", api_key="none")
    request = CompletionRequest("anthropic/claude-3-5-haiku-latest", ({"role": "user", "content": "hi"},))
    with pytest.raises(ConfigError, match="--client litellm cannot keep the query of --api-base for anthropic/"):
        asyncio.run(backend.complete(request))


def test_every_query_parameter_off_the_allow_list_is_masked_whatever_its_name():
    from judges.secrets import HARMLESS_PARAMS, is_credential_param, mask_url

    url = "https://gw/v1?api-version=2024-01&jwt=eyJ.a.b&hmac=f00d&zzz=secretvalue&api_key=ab%2Fcd&Model=m&deployment=d"
    assert mask_url(url) == (
        "https://gw/v1?api-version=2024-01&jwt=***&hmac=***&zzz=***&api_key=***&Model=m&deployment=d"
    )
    assert mask_url("https://gw/v1?api%252Dversion=1") == "https://gw/v1?api%252Dversion=***"  # encoded twice: unknown
    assert mask_url("https://gw/v1?model=m;token=t&limit=2") == "https://gw/v1?model=m;token=***&limit=2"  # `;` too
    assert len(HARMLESS_PARAMS) <= 12 and not any(is_credential_param(name) for name in HARMLESS_PARAMS)


def test_a_registered_secret_is_masked_in_any_percent_encoding():
    from urllib.parse import quote, quote_plus

    from judges.secrets import scrub_text

    secret = "enc-secret/with+plus and space-é"
    register_secret(secret)
    once = quote(secret, safe="")
    forms = [secret, once, once.lower(), quote_plus(secret, safe=""), quote(once, safe=""), quote(once.lower())]
    forms += ["enc-secret%2Fwith+plus and space-é", "enc%2Dsecret/with%2Bplus%20and space-%C3%a9"]  # partly encoded
    for form in forms:
        assert scrub_text(f"echo: {form}.") == "echo: ***.", form
        assert scrub({"message": f"[{form}]"}) == {"message": "[***]"}, form
    assert scrub_text("100% of items, 2 + 2 = 4") == "100% of items, 2 + 2 = 4"


def test_a_query_repeated_without_its_url_is_masked_as_a_urls_is():
    from judges.secrets import scrub_text

    assert scrub_text("gateway got ?jwt=abc&limit=3 and ?zzz=1") == "gateway got ?jwt=***&limit=3 and ?zzz=***"
    assert scrub_text("is it? yes = no") == "is it? yes = no"
