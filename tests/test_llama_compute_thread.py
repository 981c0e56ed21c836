"""The offline judge's server runs every completion on one thread: llama.cpp's OpenMP backend keeps a spinning team
of workers per calling thread, so completions spread over AnyIO's pool slowed each other (judges/calls/llama_serve.py).
"""

import asyncio
import importlib.util
import threading

import pytest

from judges.calls import llama_serve

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama.cpp not installed (pip install -e '.[local]')"
)


@pytest.fixture
def served_app(monkeypatch):
    """llama-cpp-python's server module with the one compute thread installed, restored afterwards."""
    from llama_cpp.server import app

    monkeypatch.setattr(app, "run_in_threadpool", app.run_in_threadpool)
    monkeypatch.setattr(app, "iterate_in_threadpool", app.iterate_in_threadpool)
    llama_serve.one_compute_thread()
    return app


def test_every_request_and_every_streamed_step_runs_on_the_same_thread(served_app):
    def complete(n, *, scale):
        return threading.get_ident(), n * scale

    def stream():
        for n in range(4):
            yield threading.get_ident(), n

    async def serve():
        replies = await asyncio.gather(*(served_app.run_in_threadpool(complete, n, scale=10) for n in range(8)))
        steps = [step async for step in served_app.iterate_in_threadpool(stream())]
        return replies, steps, threading.get_ident()

    replies, steps, loop_thread = asyncio.run(serve())
    assert [value for _, value in replies] == [0, 10, 20, 30, 40, 50, 60, 70]
    assert [value for _, value in steps] == [0, 1, 2, 3]  # the stream ends when the generator does
    threads = {thread for thread, _ in replies + steps}
    assert len(threads) == 1 and loop_thread not in threads


def test_a_failing_completion_raises_in_the_request_and_the_thread_serves_the_next(served_app):
    def fail():
        raise ValueError("bad grammar")

    async def serve():
        with pytest.raises(ValueError, match="bad grammar"):
            await served_app.run_in_threadpool(fail)
        return await served_app.run_in_threadpool(lambda: "next")

    assert asyncio.run(serve()) == "next"
