"""A loopback OpenAI-compatible stub: fixed latency, a concurrency cap, and injected faults (5xx, 429, garbage).

Run: python benchmarks/stub_server.py --port 0 --latency-ms 200 --max-concurrency 32 --error-rate 0.2
It prints `READY <port>` once it listens. The OpenAI files and batches endpoints are in stub_batches.py. GET /stats
gives request counts, how chat requests carried credentials (`auth_basic`, `auth_bearer`, `auth_none` by the
Authorization header's scheme, `query_NAME` per query parameter; any is accepted) and `span_s`, the time from the
first chat request received to the last chat reply sent (a client's run as the server saw it: no start-up, no work
after its last call); POST /reset clears them.
Replies are valid for judgelab's and grouse's judge prompts (two-answer JSON with the metric's grade
field), judgelab's yes/no rubrics (with top logprobs of "yes" and "no" when asked), and ragas' faithfulness and
answer-relevancy prompts, and judgelab's claims / claim-support / reference-relevance steps (the multi-modal
metrics'); /v1/embeddings returns unit vectors (or a 500 at --error-rate).
Multi-part messages (text and `image_url` parts) are read as their text, each image as `[image]`.
--record FILE appends every chat request's JSON body to FILE, one per line, so a test can check what was sent.
--fault KIND serves one endpoint fault on every --fault-every'th chat request (1: every one): `hang` (no reply), `429`
(with `Retry-After: --retry-after`), `500`, `truncated` (the connection closed mid-body) or `invalid_json` (a 200
whose body is not JSON); --reply-bytes N pads every reply's justifications to N bytes in all (an oversized reply).
--echo-auth-rate makes a share of chat requests fail with a 400 whose body echoes the request's Authorization
header and its JSON body, as careless proxies do: a client must not write that error anywhere unmasked.
Per chat request it parses the JSON body and works the reply out from the messages' text; both are kept (by the
body's bytes, by the text), so a benchmark's repeated runs do not pay for them again and its CPU per request is
mostly aiohttp.web's own. A reply is the same whether worked out or kept; faults, counts and ids are per request.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import hashlib
import json
import math
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

from aiohttp import web
from stub_batches import BatchStore

GRADE_FIELDS = (
    ("usefulness", (0, 1)),
    ("faithfulness", (0, 1)),
    ("answer_relevancy", (1, 2, 3, 4, 5)),
    ("completeness", (1, 2, 3, 4, 5)),
)


def judge_reply(prompt: str) -> str:
    """A plausible reply for the prompt's task, deterministic in the prompt text."""
    digest = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    for name, grades in GRADE_FIELDS:
        if f'"{name}"' in prompt or f'{name}":' in prompt:
            entry = {
                f"{name}_justification": "stub",
                name: grades[digest % len(grades)],
                "answer_affirms_no_document_answers": False,
                "answer_contains_related_information": False,
                "answer_only_asserts_no_document_answers": False,
                "content_analysis_sentence_by_sentence": [],
            }
            return json.dumps({"answer_1": entry, "answer_2": entry})
    if '"verdicts": {"1"' in prompt:  # judgelab's claim support: one verdict per numbered claim
        claims = re.findall(r"^(\d+)\. ", prompt.rpartition("Claims:")[2], flags=re.M) or ["1"]
        verdicts = {n: {"reason": "stub", "supported": bool(_bit(prompt + n)), "passages": [1]} for n in claims}
        return json.dumps({"verdicts": verdicts})
    if '"claims": the list of claims' in prompt:  # judgelab's claim extraction
        return json.dumps({"claims": ["The answer makes one claim.", "It makes a second claim."]})
    if '"relevant": true or false' in prompt:  # judgelab's chunk / reference relevance
        return json.dumps({"reason": "stub", "relevant": bool(_bit(prompt))})
    if '"preference": "A", "B" or "tie"' in prompt:  # judgelab's pairwise judge: the longer answer, whatever its place
        first, _, second = prompt.rpartition("Answer A:\n")[2].partition("\n\nAnswer B:\n")
        longer = len(first.strip()) - len(second.strip())
        return json.dumps({"reason": "stub", "preference": "A" if longer > 0 else "B" if longer < 0 else "tie"})
    if '"grade": "yes"' in prompt:  # a judgelab yes/no rubric (LlamaIndex pass/fail, aspect critiques)
        return json.dumps({"reason": "stub", "grade": ("no", "yes")[_bit(prompt)]})
    task = _ragas_input(prompt)
    if "noncommittal" in prompt:  # ragas answer relevancy: ResponseRelevanceOutput
        return json.dumps({"question": "What does the answer say?", "noncommittal": 0})
    if "verdict" in prompt:  # ragas faithfulness, step 2: one verdict per statement of the input
        statements = task.get("statements") if task else None
        if not (isinstance(statements, list) and statements and all(isinstance(s, str) for s in statements)):
            statements = re.findall(r'"statement":\s*"([^"]*)"', prompt) or ["stub statement"]
        return json.dumps({"statements": [{"statement": s, "reason": "stub", "verdict": _bit(s)} for s in statements]})
    if "statements" in prompt:  # ragas faithfulness, step 1: the answer's sentences as statements
        answer = task.get("answer") if task else None
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", answer.strip()) if s][:8] if isinstance(answer, str) else []
        return json.dumps({"statements": sentences or ["The answer makes one claim.", "It makes a second claim."]})
    return json.dumps({"text": "stub"})


def padded(content: str, size: int) -> str:
    """A JSON reply whose justification strings are padded so that it takes `size` bytes (a valid, oversized reply)."""
    try:
        reply = json.loads(content)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        return content + " " * (size - len(content))
    entries = [reply[key] for key in ("answer_1", "answer_2") if isinstance(reply.get(key), dict)] or [reply]
    pad = "x" * max(0, (size - len(content)) // len(entries))
    for entry in entries:
        key = next((k for k in entry if k.endswith("justification") or k == "reason"), "justification")
        entry[key] = str(entry.get(key, "")) + pad
    return json.dumps(reply)


CACHED_BODY_BYTES = 64 * 1024  # bodies up to this size are parsed once each (larger ones carry images)


def parsed_body(raw: bytes, charset: str = "utf-8") -> Any:
    """A request's JSON body, parsed once per distinct body when small (a benchmark sends the same requests run
    after run); callers only read it."""
    return _parsed(raw, charset) if len(raw) <= CACHED_BODY_BYTES else json.loads(raw.decode(charset))


@functools.lru_cache(maxsize=4096)
def _parsed(raw: bytes, charset: str) -> Any:
    return json.loads(raw.decode(charset))


def prompt_reply(body: dict) -> tuple[int, str, float]:
    """The messages' text length, the judge's reply to them and P("yes") for a logprobs request."""
    prompt = "\n".join(message_text(m.get("content", "")) for m in body.get("messages", []))
    return _prompt_reply(prompt)


@functools.lru_cache(maxsize=4096)
def _prompt_reply(prompt: str) -> tuple[int, str, float]:
    p_yes = 0.05 + 0.9 * (hashlib.sha256(prompt.encode()).digest()[1] / 255)
    return len(prompt), judge_reply(prompt), p_yes


def message_text(content: object) -> str:
    """A message's content as text: a multi-part content's text parts, each image part as `[image]`."""
    if not isinstance(content, list):
        return str(content)
    return "".join(
        str(part.get("text", "")) if part.get("type") == "text" else "[image]"
        for part in content
        if isinstance(part, dict)
    )


def _ragas_input(prompt: str) -> dict | None:
    """The JSON input that closes a ragas PydanticPrompt (`input: {...}` then `Output: `), if any."""
    start = prompt.rfind("\ninput: {")
    if start < 0:
        return None
    text = prompt[start + len("\ninput: ") :]
    end = text.rfind("\nOutput:")
    try:
        task = json.loads(text[:end] if end >= 0 else text)
    except ValueError:
        return None
    return task if isinstance(task, dict) else None


def _bit(text: str) -> int:
    return hashlib.sha256(text.encode()).digest()[0] % 2


class Stub:
    def __init__(
        self,
        latency_s: float,
        max_concurrency: int,
        error_rate: float,
        garbage_rate: float,
        seed: int,
        echo_auth_rate: float = 0.0,
    ) -> None:
        self.latency_s, self.error_rate, self.garbage_rate = latency_s, error_rate, garbage_rate
        self.echo_auth_rate = echo_auth_rate
        self.embedding_latency_s = latency_s
        self.slots = asyncio.Semaphore(max_concurrency)
        self.random = random.Random(seed)
        self.stats: Counter[str] = Counter()
        self.in_flight = self.peak = 0
        self.first_at: float | None = None  # perf_counter of the first chat request since the last reset
        self.last_at: float | None = None  # and of the last chat reply sent
        self.status, self.known_model, self.hang_rate = 0, "", 0.0
        self.fingerprint, self.served_model = "stub-fp-1", ""  # what each reply says served it
        self.record_path = ""
        self.fault, self.fault_every, self.retry_after, self.reply_bytes = "", 1, 0.0, 0
        self.batches = BatchStore(self.answer, self.stats)

    async def chat(self, request: web.Request) -> web.StreamResponse:
        if self.first_at is None:
            self.first_at = time.perf_counter()
        self.count_credentials(request)
        response = await self._chat(request)
        if response.prepared:  # a fault that has sent (part of) its reply already
            return response
        try:
            await response.prepare(request)  # sent here, so the span ends when the reply has gone out
            await response.write_eof()
        except ConnectionResetError:  # the client gave up on it (its timeout, or its run stopped)
            return response
        self.last_at = time.perf_counter()
        return response

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = parsed_body(await request.read(), request.charset or "utf-8")
        if self.record_path:
            with open(self.record_path, "a", encoding="utf-8") as record:
                record.write(json.dumps(body) + "\n")
        self.stats["chat"] += 1
        if self.fault and self.stats["chat"] % self.fault_every == 0:
            return await self._fault(request, body)
        if self.status:  # a broken endpoint: every request gets this status (401, 403, 500, ...)
            self.stats[str(self.status)] += 1
            return web.json_response({"error": {"message": f"injected status {self.status}"}}, status=self.status)
        if self.known_model and body.get("model") != self.known_model:
            self.stats["404"] += 1
            return web.json_response(
                {"error": {"message": f"The model `{body.get('model')}` does not exist", "code": "model_not_found"}},
                status=404,
            )
        if self.hang_rate and self.random.random() < self.hang_rate:
            self.stats["hung"] += 1
            await asyncio.Event().wait()  # never answers
        async with self.slots:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            try:
                await asyncio.sleep(self.latency_s)
                if self.echo_auth_rate and self.random.random() < self.echo_auth_rate:
                    return self._echo(request, body)
                return self._reply(body)
            finally:
                self.in_flight -= 1

    async def _fault(self, request: web.Request, body: dict) -> web.StreamResponse:
        """One endpoint fault (--fault), counted under its name."""
        self.stats[f"fault_{self.fault}"] += 1
        if self.fault == "hang":
            await asyncio.Event().wait()  # never answers
        if self.fault == "429":
            headers = {"Retry-After": f"{self.retry_after:g}"}
            return web.json_response({"error": {"message": "injected rate limit"}}, status=429, headers=headers)
        if self.fault == "500":
            return web.json_response({"error": {"message": "injected server error"}}, status=500)
        if self.fault == "invalid_json":
            return web.Response(body=b'{"id": "stub", "choices": [', content_type="application/json")
        # truncated: the headers promise the whole reply, half of it is sent, then the connection is closed
        whole = json.dumps(self.answer(body)).encode()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.content_length = len(whole)
        await response.prepare(request)
        await response.write(whole[: len(whole) // 2])
        if request.transport is not None:
            request.transport.close()
        return response

    def count_credentials(self, request: web.Request) -> None:
        """Count how a chat request carried credentials: `auth_basic`, `auth_bearer` or `auth_none` by its
        Authorization header's scheme (a Basic one is accepted as any other), `query_NAME` per query parameter."""
        scheme = request.headers.get("Authorization", "").partition(" ")[0].lower() or "none"
        self.stats[f"auth_{scheme}"] += 1
        for name in request.query:
            self.stats[f"query_{name}"] += 1

    def _echo(self, request: web.Request, body: dict) -> web.Response:
        """A 400 that repeats the caller's credentials: the Authorization header and the whole request body."""
        self.stats["requests"] += 1
        self.stats["echo"] += 1
        message = f"bad request from {request.headers.get('Authorization', '')}; body {json.dumps(body)}"
        return web.json_response({"error": {"message": message, "type": "invalid_request_error"}}, status=400)

    def _reply(self, body: dict) -> web.Response:
        self.stats["requests"] += 1
        roll = self.random.random()
        if roll < self.error_rate / 2:
            self.stats["500"] += 1
            return web.json_response({"error": {"message": "injected server error"}}, status=500)
        if roll < self.error_rate:
            self.stats["429"] += 1
            return web.json_response(
                {"error": {"message": "injected rate limit"}}, status=429, headers={"Retry-After": "0"}
            )
        garbage = roll < self.error_rate + self.garbage_rate
        if garbage:
            self.stats["garbage"] += 1
        self.stats["ok"] += 1
        return web.json_response(self.answer(body, garbage))

    def answer(self, body: dict, garbage: bool = False) -> dict:
        """The chat-completion JSON for a request: the same online and in a batch's output file."""
        prompt_chars, content, p_yes = prompt_reply(body)
        if self.reply_bytes and len(content) < self.reply_bytes:
            content = padded(content, self.reply_bytes)
        if garbage:
            content = "Sorry, the grade is: <<<not json>>>"
        n = int(body.get("n") or 1)
        choices = [
            {"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            for i in range(n)
        ]
        if body.get("logprobs"):  # one next token: "yes" or "no", with both among the top tokens
            top = [{"token": "yes", "logprob": math.log(p_yes)}, {"token": "no", "logprob": math.log(1 - p_yes)}]
            for choice in choices:
                choice["message"]["content"] = "yes" if p_yes >= 0.5 else "no"
                choice["logprobs"] = {
                    "content": [
                        {
                            "token": choice["message"]["content"],
                            "logprob": -0.1,
                            "top_logprobs": top[: int(body.get("top_logprobs") or 2)],
                        }
                    ]
                }
        usage = {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": len(content) // 4,
            "total_tokens": prompt_chars // 4 + len(content) // 4,
        }
        return {
            "id": f"stub-{self.stats['requests']}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.served_model or body.get("model", "stub"),
            "system_fingerprint": self.fingerprint,
            "choices": choices,
            "usage": usage,
        }

    async def embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        inputs = body.get("input") or [""]
        inputs = [inputs] if isinstance(inputs, str) else inputs
        await asyncio.sleep(self.embedding_latency_s)
        if self.error_rate and self.random.random() < self.error_rate:
            self.stats["embedding_500"] += 1
            return web.json_response({"error": {"message": "injected server error"}}, status=500)
        data = []
        for i, text in enumerate(inputs):
            rng = random.Random(str(text))
            vector = [rng.gauss(0, 1) for _ in range(32)]
            norm = sum(v * v for v in vector) ** 0.5
            data.append({"object": "embedding", "index": i, "embedding": [v / norm for v in vector]})
        self.stats["embeddings"] += 1
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "stub"),
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        )

    async def models(self, _request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "stub", "object": "model"}]})

    async def get_stats(self, _request: web.Request) -> web.Response:
        span = {"span_s": self.last_at - self.first_at} if self.first_at is not None and self.last_at else {}
        return web.json_response({**self.stats, "peak_concurrency": self.peak, **span})

    async def reset(self, _request: web.Request) -> web.Response:
        self.stats.clear()
        self.peak = 0
        self.first_at = self.last_at = None
        return web.json_response({"ok": True})


def build_app(stub: Stub) -> web.Application:
    app = web.Application(client_max_size=256 * 1024 * 1024)  # a batch input file may be large
    app.add_routes(stub.batches.routes())
    app.add_routes(
        [
            web.post("/v1/chat/completions", stub.chat),
            web.post("/chat/completions", stub.chat),
            web.post("/v1/embeddings", stub.embeddings),
            web.post("/embeddings", stub.embeddings),
            web.get("/v1/models", stub.models),
            web.get("/stats", stub.get_stats),
            web.post("/reset", stub.reset),
        ]
    )
    return app


async def serve(args: argparse.Namespace) -> None:
    stub = Stub(
        args.latency_ms / 1000, args.max_concurrency, args.error_rate, args.garbage_rate, args.seed, args.echo_auth_rate
    )
    stub.status, stub.known_model, stub.hang_rate = args.status, args.model, args.hang_rate
    stub.record_path = args.record
    stub.fingerprint, stub.served_model = args.fingerprint, args.served_model
    stub.fault, stub.fault_every, stub.retry_after = args.fault, max(1, args.fault_every), args.retry_after
    stub.reply_bytes = args.reply_bytes
    stub.batches.delay_s, stub.batches.fail_rate = args.batch_delay_s, args.batch_fail_rate
    if args.embedding_latency_ms is not None:
        stub.embedding_latency_s = args.embedding_latency_ms / 1000
    runner = web.AppRunner(build_app(stub), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"READY {port}", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument(
        "--embedding-latency-ms", type=float, default=None, help="latency of /v1/embeddings (default: --latency-ms)"
    )
    parser.add_argument("--max-concurrency", type=int, default=32)
    parser.add_argument("--error-rate", type=float, default=0.0, help="share of 5xx + 429 replies (half each)")
    parser.add_argument("--garbage-rate", type=float, default=0.0, help="share of replies that are not JSON")
    parser.add_argument(
        "--echo-auth-rate",
        type=float,
        default=0.0,
        help="share of chat requests answered by a 400 echoing the Authorization header and body",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-rate", type=float, default=0.0, help="share of requests never answered")
    parser.add_argument("--status", type=int, default=0, help="answer every chat request with this HTTP status")
    parser.add_argument("--model", default="", help="the only model id served; others get a 404 (default: any)")
    parser.add_argument("--fingerprint", default="stub-fp-1", help="the system_fingerprint every reply carries")
    parser.add_argument("--served-model", default="", help="the model name every reply carries (default: the asked)")
    parser.add_argument("--record", default="", metavar="FILE", help="append each chat request's JSON body to FILE")
    parser.add_argument(
        "--fault", default="", choices=["", "hang", "429", "500", "truncated", "invalid_json"], help="an endpoint fault"
    )
    parser.add_argument("--fault-every", type=int, default=1, help="the fault on every Nth chat request (1: all)")
    parser.add_argument("--retry-after", type=float, default=0.0, help="the Retry-After seconds of --fault 429")
    parser.add_argument("--reply-bytes", type=int, default=0, help="pad every chat reply to this many bytes")
    parser.add_argument("--batch-delay-s", type=float, default=1.0, help="seconds a batch takes to complete")
    parser.add_argument("--batch-fail-rate", type=float, default=0.0, help="share of batch lines that fail (400)")
    asyncio.run(serve(parser.parse_args()))


@contextlib.contextmanager
def running_stub(**options: float | str) -> Iterator[str]:
    """Run this server in a subprocess on a free port; yields its base URL (…/v1). Options are its flags."""
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in options.items()]
    process = subprocess.Popen([sys.executable, __file__, "--port", "0", *flags], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("READY "):
            raise RuntimeError(f"stub server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        process.kill()
        process.wait()


def stub_stats(base_url: str, reset: bool = False) -> dict[str, Any]:
    """The server's counters; with reset=True, clear them (after reading)."""
    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(root + "/stats", timeout=5) as response:
        counts = json.loads(response.read())
    if reset:
        urllib.request.urlopen(urllib.request.Request(root + "/reset", method="POST"), timeout=5).close()
    return counts


if __name__ == "__main__":
    main()
