"""A secret canary: every command that takes a judge, run through the CLI against the loopback stub with a canary
in the API key variable, in `--api-base`'s userinfo and query and in `--extra` headers, succeeds and leaves the
canary in no file it writes and in neither stream; the stub saw the credentials arrive (Bearer or Basic, the
query key)."""

from __future__ import annotations

import base64
import contextlib
import html
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import parse_qsl, quote, quote_plus, unquote_plus, urlsplit

import pytest
from conftest import ROOT, hang_guard, write_jsonl
from stub import stats, stub_server

CANARY = "CANARY7f3e"  # every planted credential holds it
KEY = f"sk-{CANARY}-environment-key"
USER, PASSWORD = f"{CANARY}-user", f"{CANARY}-password"
QUERY_KEY = f"{CANARY}-query-key"
HEADER = f"{CANARY}-header-token"
EXTRA = json.dumps({"extra_headers": {"X-Gateway-Token": HEADER}})
# what must never be written or printed: the canary, and the Basic token its userinfo makes (base64 hides it)
FORBIDDEN = (CANARY, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
TESTS = ROOT / "unit_tests" / "test.jsonl"
TUNE_ITEMS = [
    {
        "id": f"i{n:02d}",
        "metric": "faithfulness",
        "label": n % 2,
        "label_type": "binary",
        "input": f"What does document {n} say about topic {n}?",
        "references": [f"Document {n} says topic {n} is settled."],
        "actual_output": f"Topic {n} is {'settled' if n % 2 else 'unsettled'} [1] (answer {n}).",
    }
    for n in range(24)
]
SPACE = '[search]\nfirst_round_items = 4\n\n[metrics.faithfulness]\nexamples = [0]\nreply_formats = ["as_written"]\n'
LEADERBOARD = """cache = "{cache}"

[[candidates]]
name = "stub-judge"
model = "openai/stub"
api_base = "{base}"
extra = {{extra_headers = {{X-Gateway-Token = "{header}"}}}}

[[candidates]]
name = "always-top"
kind = "baseline"
baseline = "always-top"

[[evaluations]]
kind = "unit_tests"
source = "{tests}"
limit = 4
"""


@pytest.fixture(scope="module")
def stub():
    with stub_server(latency_ms=1) as base:
        yield base


def with_credentials(base: str) -> str:
    """The stub's URL with the canary as userinfo and as a `key` query parameter (beside a harmless one)."""
    scheme, _, rest = base.partition("://")
    return f"{scheme}://{USER}:{PASSWORD}@{rest}?api-version=1&key={QUERY_KEY}"


def data_file(folder: Path) -> Path:
    samples = [json.loads(line) for line in (ROOT / "examples" / "samples.jsonl").read_text().splitlines()[:2]]
    return write_jsonl(folder / "samples.jsonl", samples)


def command(name: str, folder: Path, api_base: str) -> list[str]:
    """The command line of `name` on tiny inputs, writing everything under `folder`."""
    judge = ["--judge", "openai/stub", "--api-base", api_base, "--extra", EXTRA, "--cache", str(folder / "c.sqlite")]
    out = ["--out", str(folder / "out")]
    if name == "meta-eval":
        return ["meta-eval", "--tests", str(TESTS), "--limit", "2", *judge, *out]
    if name == "evaluate":
        return ["evaluate", str(data_file(folder)), "--limit", "2", *judge, *out]
    if name == "metrics":
        return ["metrics", "--metrics", "grouse", "--data", str(data_file(folder)), "--limit", "2", *judge, *out]
    if name == "validate":
        return ["validate", "--tests", str(TESTS), "--limit", "2", "--min", "total=0", *judge, *out]
    if name == "probe":
        return ["probe", "--data", str(data_file(folder)), "--limit", "2", *judge, *out]
    if name == "tune":
        labels = write_jsonl(folder / "labels.jsonl", TUNE_ITEMS)
        space = folder / "space.toml"
        space.write_text(SPACE)
        tune = ["--labels", str(labels), "--metrics", "faithfulness", "--space", str(space)]
        return ["tune", *tune, "--resamples", "100", *judge, "--prompts", "default", *out]
    assert name == "leaderboard"
    config = folder / "board.toml"
    values = {"cache": folder / "c.sqlite", "base": api_base, "header": HEADER, "tests": ROOT / "unit_tests"}
    config.write_text(LEADERBOARD.format(**values))
    return ["leaderboard", str(config), *out]


def run_with_canary(folder: Path, args: list[str], key: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith(("_API_KEY", "_TOKEN"))}
    env.update({"PYTHONPATH": str(ROOT), **({"OPENAI_API_KEY": key} if key else {})})
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=hang_guard(),
    )


def assert_no_canary(folder: Path, result: subprocess.CompletedProcess[str]) -> None:
    written = [path for path in folder.rglob("*") if path.is_file()]
    planted = {"board.toml"}  # the leaderboard's own config, written by the test with the canary in it
    assert any(path.name == "c.sqlite" for path in written)  # the cache was written (and is checked)
    for secret in FORBIDDEN:
        for path in written:
            if path.name not in planted:
                assert secret.encode() not in path.read_bytes(), (secret, path)
        assert secret not in result.stdout, (secret, result.stdout[-2000:])
        assert secret not in result.stderr, (secret, result.stderr[-2000:])


COMMANDS = ["meta-eval", "evaluate", "metrics", "validate", "probe", "tune", "leaderboard"]


def test_the_canary_covers_every_command_that_takes_a_judge():
    from judges.cli.main import build_parser, commands

    ALL = commands()

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    with_a_judge = {name for name in ALL if "--api-base" in commands[name]._option_string_actions}
    assert with_a_judge | {"leaderboard"} == set(COMMANDS)  # the leaderboard's judges are in its TOML


@pytest.mark.parametrize("name", COMMANDS)
def test_no_credential_reaches_a_file_or_a_stream(name, stub, tmp_path):
    stats(stub, reset=True)
    result = run_with_canary(tmp_path, command(name, tmp_path, with_credentials(stub)), KEY)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_no_canary(tmp_path, result)
    served = stats(stub, reset=True)
    chats = served["auth_bearer"]  # the key wins: the userinfo is not sent
    assert chats > 0 and "auth_basic" not in served and "auth_none" not in served, served
    assert served["query_key"] == served["query_api-version"] == chats  # the query stays in every URL requested


@pytest.mark.parametrize("client", ["lean", "litellm"])
def test_without_a_key_the_userinfo_is_sent_as_basic_auth_and_never_shown(client, stub, tmp_path):
    stats(stub, reset=True)
    args = [*command("meta-eval", tmp_path, with_credentials(stub)), "--client", client]
    result = run_with_canary(tmp_path, args, key=None)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_no_canary(tmp_path, result)
    served = stats(stub, reset=True)
    assert served["auth_basic"] > 0 and "auth_bearer" not in served and "auth_none" not in served, served
    assert served["query_key"] == served["auth_basic"]
    recorded = json.loads((tmp_path / "out" / "run.json").read_text())["config"]["api_base"]
    assert recorded == with_credentials(stub).replace(f"{USER}:{PASSWORD}", "***").replace(QUERY_KEY, "***")


@pytest.mark.parametrize(("client", "key"), [("lean", None), ("litellm", KEY)])
def test_an_unusable_endpoint_is_named_with_its_credentials_masked(client, key, tmp_path):
    dead = with_credentials("http://127.0.0.1:9/v1")  # nothing listens
    args = [*command("meta-eval", tmp_path, dead), "--client", client, "--quiet"]
    result = run_with_canary(tmp_path, args, key)
    assert result.returncode == 3, result.stderr[-3000:]
    assert_no_canary(tmp_path, result)
    named = "judge openai/stub at http://***@127.0.0.1:9/v1?api-version=1&key=*** is unusable"
    assert named in result.stderr.splitlines()[-1]
    assert named in (tmp_path / "out" / "summary.md").read_text()


# a token as a gateway may take it: under any query name, with characters a URL must percent-encode (`/`, `+`, ` `)
TOKEN = f"{CANARY}/jwt+part two"
NAMES = ("api_key", "jwt", "hmac", "zzz")


def encodings(secret: str) -> set[str]:
    """`secret` as written and in every percent-encoding a client or an echoing server may give it."""
    once = quote(secret, safe="")
    return {secret, once, once.lower(), quote_plus(secret, safe=""), quote(once, safe=""), once.replace("%20", "+")}


def with_tokens(base: str) -> str:
    """`base` with the token percent-encoded under each of NAMES, beside a harmless parameter kept as written."""
    return f"{base}?api-version=1&" + "&".join(f"{name}={quote(TOKEN, safe='')}" for name in NAMES)


def assert_no_token(folder: Path, result: subprocess.CompletedProcess[str]) -> None:
    """No form of the token (nor the canary) in any file under `folder` (the run folder, the cache) or either stream."""
    assert_no_canary(folder, result)
    forms = encodings(TOKEN) | {TOKEN.split("/")[0]}
    for path in (path for path in folder.rglob("*") if path.is_file()):
        data = path.read_bytes()
        assert not [form for form in forms if form.encode() in data], path
    assert not [form for form in forms if form in result.stdout + result.stderr], result.stderr[-2000:]


@pytest.mark.parametrize("name", ["meta-eval", "evaluate"])
def test_tokens_under_any_query_name_and_percent_encoded_are_masked(name, stub, tmp_path):
    stats(stub, reset=True)
    result = run_with_canary(tmp_path, command(name, tmp_path, with_tokens(stub)), KEY)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_no_token(tmp_path, result)
    served = stats(stub, reset=True)
    assert served["chat"] > 0 and all(served[f"query_{name}"] == served["chat"] for name in NAMES), served
    recorded = json.loads((tmp_path / "out" / "run.json").read_text())["config"]["api_base"]
    assert recorded == f"{stub}?api-version=1&api_key=***&jwt=***&hmac=***&zzz=***"
    assert html.escape(recorded) in (tmp_path / "out" / "report.html").read_text()


class EchoingGateway(http.server.BaseHTTPRequestHandler):
    """Refuses every call with its status and a body that repeats the query it received, as sent and decoded."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        query = urlsplit(self.path).query
        message = f"rejected {self.path}: query {query} read as {unquote_plus(query)} ({dict(parse_qsl(query))})"
        body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
        self.send_response(self.server.status)  # type: ignore[attr-defined]
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def echoing_gateway(status: int):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoingGateway)
    server.status = status  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("client", "status"), [("lean", 400), ("lean", 401), ("lean", 500), ("litellm", 401)])
def test_an_error_echoing_the_query_leaves_no_form_of_the_token_anywhere(client, status, tmp_path):
    with echoing_gateway(status) as base:
        args = [*command("meta-eval", tmp_path, with_tokens(base)), "--client", client, "--max-attempts", "1"]
        result = run_with_canary(tmp_path, args, KEY)
    assert result.returncode == 3, result.stderr[-3000:]
    echoed = "rejected /v1/chat/completions?api-version=1&api_key=***&jwt=***&hmac=***&zzz=*** query api-version=1&"
    assert echoed in result.stderr.splitlines()[-1]  # the echo is there, masked
    assert_no_token(tmp_path, result)
