"""A header that would split in two (a CR, LF or other control character in an `--extra` header) and a malformed
`--api-base` are bad usage: one line naming the flag, exit 2, before any call; the URL named masked."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from stub import stats, stub_server

from judges.config.judge import build_config
from judges.errors import ConfigError

TESTS = ROOT / "unit_tests" / "test.jsonl"
SECRET = "sk-flags-planted-secret-9"


@pytest.fixture(scope="module")
def stub():
    with stub_server(latency_ms=1) as base:
        yield base


def meta_eval(tmp_path, *judge: str) -> subprocess.CompletedProcess[str]:
    args = ["meta-eval", "--tests", str(TESTS), "--limit", "2", "--judge", "openai/stub", *judge]
    args += ["--cache", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "out")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": SECRET}
    return subprocess.run(
        [sys.executable, "-m", "judges.cli.main", *args], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Gateway-Token": f"{SECRET}\r\nX-Injected: 1"},
        {"X-Gateway-Token": f"{SECRET}\n"},
        {"X-Gateway-Token": f"{SECRET}\x00"},
        {"X-Gateway\r\nToken": SECRET},
        {"X Gateway": SECRET},
    ],
)
def test_a_header_with_a_control_character_is_one_line_and_exit_2_before_any_call(headers, stub, tmp_path):
    stats(stub, reset=True)
    result = meta_eval(tmp_path, "--api-base", stub, "--extra", json.dumps({"extra_headers": headers}))
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("judgelab: error: --extra extra_headers")
    assert SECRET not in result.stderr + result.stdout and "Traceback" not in result.stderr
    assert stats(stub).get("chat", 0) == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("localhost:8000/v1", "needs to start with http:// or https://"),
        ("127.0.0.1:8000/v1?key=" + SECRET, "needs to start with http:// or https://"),
        ("http://localhost:99999/v1", "Port out of range"),
        ("http://localhost:80a/v1", "Port could not be cast"),
        ("http://local host:8000/v1", "holds a space"),
        ("http://user:" + SECRET + "@[::1/v1", "Invalid IPv6 URL"),
        ("http://", "needs to start with http:// or https://"),
        ("ftp://localhost/v1", "needs to start with http:// or https://"),
    ],
)
def test_a_malformed_api_base_is_one_line_naming_the_flag_and_exit_2(url, shown, tmp_path):
    result = meta_eval(tmp_path, "--api-base", url)
    assert result.returncode == 2, result.stderr[-2000:]
    line = result.stderr.strip()
    assert result.stderr.count("\n") == 1 and line.startswith("judgelab: error: --api-base "), line
    assert shown in line and SECRET not in result.stderr + result.stdout
    assert not (tmp_path / "out").exists()


def test_a_usable_api_base_and_headers_pass_and_the_api_names_the_field():
    config = build_config({"api_base": ["http://[::1]:8000/v1", "https://gw.example/v1?api-version=1"]})
    assert config.api_bases()[0] == "http://[::1]:8000/v1"
    assert build_config({"extra": {"extra_headers": {"X-Token": "a\tb"}}}).extra  # a tab may be in a value
    with pytest.raises(ConfigError, match=r"^api_base needs to start with http:// or https://.*: '\*\*\*@host/v1'$"):
        build_config({"api_base": f"me:{SECRET}@host/v1"})
    with pytest.raises(ConfigError, match=r"^extra extra_headers.X-Token holds a line break"):
        build_config({"extra": {"extra_headers": {"X-Token": "a\r\nb"}}})


def test_a_malformed_embeddings_api_base_is_one_line_and_exit_2(capsys, tmp_path):
    from judges.cli.main import main

    data = str(ROOT / "examples" / "samples.jsonl")
    args = ["metrics", "--metrics", "grouse", "--data", data, "--judge", "openai/x", "--out", str(tmp_path / "out")]
    assert main([*args, "--embeddings-api-base", f"localhost:1/v1?key={SECRET}"]) == 2
    assert capsys.readouterr().err == (
        "judgelab: error: --embeddings-api-base needs to start with http:// or https:// and a host, e.g. "
        "http://localhost:8000/v1: 'localhost:1/v1?key=***'\n"
    )
    assert not (tmp_path / "out").exists()
