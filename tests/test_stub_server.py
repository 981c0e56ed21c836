"""The benchmarks' stub server: a repeated request gets the reply a fresh server gives it (what it keeps changes no
reply), for judge prompts, logprobs requests and multi-part messages; its span from first request to last reply."""

import json
import urllib.request

from conftest import hang_guard
from stub import stub_server

BODIES = [
    {"model": "stub", "messages": [{"role": "user", "content": 'Grade it. "usefulness": 0 or 1. Answer: yes.'}]},
    {
        "model": "stub",
        "messages": [{"role": "user", "content": 'Reply "grade": "yes" or "no".'}],
        "logprobs": True,
        "top_logprobs": 2,
        "max_tokens": 1,
    },
    {
        "model": "stub",
        "n": 2,
        "messages": [
            {"role": "system", "content": "You judge."},
            {"role": "user", "content": [{"type": "text", "text": '"completeness": 1 to 5'}, {"type": "image_url"}]},
        ],
    },
]


def post(base, body):
    request = urllib.request.Request(
        f"{base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=hang_guard(10)) as response:
        reply = json.loads(response.read())
    return {k: v for k, v in reply.items() if k not in ("id", "created")}


def test_a_repeated_request_gets_the_reply_a_fresh_server_gives():
    with stub_server(latency_ms=1) as first:
        once = [post(first, body) for body in BODIES]
        again = [post(first, body) for body in BODIES]
    with stub_server(latency_ms=1) as fresh:
        new = [post(fresh, body) for body in reversed(BODIES)][::-1]
    assert once == again == new
    assert once[1]["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
    assert len(once[2]["choices"]) == 2 and once[0]["usage"]["prompt_tokens"] > 0


def test_the_span_runs_from_the_first_request_to_the_last_reply_and_a_reset_clears_it():
    from stub import stats

    with stub_server(latency_ms=50) as base:
        assert "span_s" not in stats(base)  # nothing served yet
        post(base, BODIES[0])
        post(base, BODIES[0])  # two requests one after the other: at least two latencies
        assert stats(base, reset=True)["span_s"] >= 0.1  # a floor the server's own sleeps set, whatever the load
        assert "span_s" not in stats(base)
        post(base, BODIES[0])
        assert stats(base)["span_s"] >= 0.05
