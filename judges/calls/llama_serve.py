"""llama.cpp's OpenAI-compatible server, with greedy schema-constrained decoding that tries the top token first,
logits kept for every position only when a request asks for logprobs, and every completion run on one thread."""

from __future__ import annotations

import asyncio
import ctypes
import functools
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from judges.calls.local_server import PARENT_PID

P = ParamSpec("P")
T = TypeVar("T")

# llama-cpp-python masks the whole vocabulary (49k tokens for SmolLM2) against the JSON grammar before every greedy
# step: about 7 ms a token here, as long as the model's own step. When the model's top token already fits the
# grammar it is also the top token of the masked vocabulary, so checking that one token first picks the very same
# token; the whole vocabulary is masked only when it does not fit (llama.cpp's own server samples this way too).


class GrammarCheckedGreedy:
    """A greedy sampler for one completion: repetition penalties, then the grammar checked on the top token alone,
    the whole vocabulary masked only when that token is refused. Stands in for llama-cpp-python's sampler chain
    (penalties, grammar, greedy), whose `sample(ctx, idx)` it shares."""

    def __init__(self, llama: Any, grammar: Any, *, repeat: float, frequency: float, presence: float) -> None:
        import numpy as np
        from llama_cpp import _internals, llama_cpp

        self._lib, self._np = llama_cpp, np
        new_sampler: Any = _internals.LlamaSampler  # untyped in llama-cpp-python
        self.penalties = new_sampler()
        self.penalties.add_penalties(
            n_vocab=llama._n_vocab,
            penalty_last_n=llama.last_n_tokens_size,
            penalty_repeat=repeat,
            penalty_freq=frequency,
            penalty_present=presence,
        )
        self.grammar = new_sampler()
        self.grammar.add_grammar(llama._model, grammar)
        self.n_vocab = llama._n_vocab
        dtype = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
        self._all = np.zeros(self.n_vocab, dtype=dtype)
        self._all["id"] = np.arange(self.n_vocab, dtype=np.int32)
        self._top = np.zeros(1, dtype=dtype)
        self.full_masks = 0  # how many steps needed the whole vocabulary masked (read by the tests)

    def _apply(self, sampler: Any, table: Any) -> None:
        array = self._lib.llama_token_data_array(
            data=table.ctypes.data_as(self._lib.llama_token_data_p), size=len(table), selected=-1, sorted=False
        )
        self._lib.llama_sampler_apply(sampler.sampler, ctypes.byref(array))

    def sample(self, ctx: Any, idx: int = -1) -> int:
        np = self._np
        logits = np.ctypeslib.as_array(self._lib.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,))
        self._all["logit"] = logits
        self._apply(self.penalties, self._all)
        best = int(np.argmax(self._all["logit"]))  # the first of equal maxima, as llama.cpp's greedy sampler
        self._top[0] = self._all[best]
        self._apply(self.grammar, self._top)
        if not np.isfinite(self._top["logit"][0]):
            self.full_masks += 1
            self._apply(self.grammar, self._all)
            best = int(np.argmax(self._all["logit"]))
        token = int(self._all["id"][best])
        self.penalties.accept(token)
        self.grammar.accept(token)
        return token

    def close(self) -> None:
        self.penalties.close()
        self.grammar.close()


def install() -> None:
    """Make llama-cpp-python use `GrammarCheckedGreedy` for greedy (temperature 0) grammar-constrained completions
    with no logits processor or mirostat (every other completion keeps its own sampler chain), and compute the
    logits of every prompt position only for the completions that need them (`logits_for_every_position`)."""
    from llama_cpp import Llama

    original = Llama._init_sampler
    if getattr(original, "grammar_checked", False):
        return
    completion = Llama._create_completion

    def create_completion(self: Any, *args: Any, **options: Any) -> Any:
        if len(self.scores) == self._n_ctx:  # loaded with logits_all (as the server loads it): room for every row
            self._logits_all = logits_for_every_position(options)
        yield from completion(self, *args, **options)

    def init_sampler(self: Any, **options: Any) -> Any:
        if (
            options.get("temp") == 0.0
            and options.get("grammar") is not None
            and options.get("logits_processor") is None
            and not options.get("mirostat_mode")
        ):
            return GrammarCheckedGreedy(
                self,
                options["grammar"],
                repeat=options.get("repeat_penalty", 1.0),
                frequency=options.get("frequency_penalty", 0.0),
                presence=options.get("presence_penalty", 0.0),
            )
        return original(self, **options)

    init_sampler.grammar_checked = True  # type: ignore[attr-defined]
    Llama._init_sampler = init_sampler  # type: ignore[method-assign,assignment]
    Llama._create_completion = create_completion  # type: ignore[method-assign,assignment]


def logits_for_every_position(options: dict[str, Any]) -> bool:
    """Whether a completion needs the logits of every position it evaluates: only to report logprobs, or for a logits
    processor or logit bias (which read the stored scores). The server loads the model with `logits_all` on; the
    others sample from the last position's logits alone, and leaving the rest out makes llama.cpp skip the output
    layer (a sixth of SmolLM2's weights) for every prompt token. The logprobs llama-cpp-python reports come from the
    last prompt position on, which every completion evaluates afresh, so a prefix another completion evaluated
    without them leaves them unchanged."""
    return any(options.get(name) is not None for name in ("logprobs", "logits_processor", "logit_bias"))


# llama.cpp's CPU backend (built with OpenMP here) keeps a team of worker threads for each thread that calls it, and an
# idle team spins for a while before it sleeps. llama-cpp-python's server hands each request to any thread of AnyIO's
# pool, so consecutive requests ran on different threads and one team's spinning took a core from the next one's work:
# replaying the main job's 96 requests alternately from two threads took 67.6 s against 52.6 s from one (generating
# 33.8 s against 19.7 s; the same replies; benchmarks/offline_thread.py). The server answers one request at a time.
@functools.cache
def compute_thread() -> ThreadPoolExecutor:
    """The server's one compute thread, started with its first completion."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama-compute")


async def run_on_compute_thread(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`starlette.concurrency.run_in_threadpool`, on the one compute thread."""
    return await asyncio.get_running_loop().run_in_executor(
        compute_thread(), functools.partial(function, *args, **kwargs)
    )


async def iterate_on_compute_thread(iterator: Iterable[T]) -> AsyncIterator[T]:
    """`starlette.concurrency.iterate_in_threadpool` (streamed replies), each step on the one compute thread."""
    steps, done = iter(iterator), object()
    while (item := await run_on_compute_thread(next, steps, done)) is not done:
        yield item  # type: ignore[misc]  # `done` is the only other value next() returns


def one_compute_thread() -> None:
    """Make llama-cpp-python's server run every completion, streamed or not, on `compute_thread()`."""
    from llama_cpp.server import app

    app.run_in_threadpool = run_on_compute_thread  # type: ignore[attr-defined,assignment]
    app.iterate_in_threadpool = iterate_on_compute_thread  # type: ignore[attr-defined]


# The server's lifetime. uvicorn answers SIGTERM and SIGINT by shutting down gracefully: it waits for the requests
# in flight, and the interpreter then waits for the compute thread to finish every completion queued on it, each
# taking seconds; a run stopped with a dozen calls in flight kept its server generating, for a client that was gone.
# Nothing in the server is worth that wait (judgelab keeps every reply it got), so a stop signal ends it after a
# short grace, and the server ends when judgelab does, however judgelab ends.
GRACE_S = 1.0  # after a stop signal: time to answer the request in flight, then the process ends
WATCH_S = 0.5  # how often the server checks that judgelab is alive


def end_after_grace(signum: int) -> None:
    """End the process GRACE_S after a stop signal, whatever its threads are doing."""
    timer = threading.Timer(GRACE_S, os._exit, (128 + signum,))
    timer.daemon = True
    timer.start()


def end_promptly_on_signals() -> None:
    """Make uvicorn's stop-signal handler (graceful shutdown) also start `end_after_grace`."""
    import uvicorn

    graceful = uvicorn.Server.handle_exit
    if getattr(graceful, "ends_promptly", False):
        return

    def handle_exit(self: Any, sig: int, frame: Any) -> None:
        end_after_grace(sig)
        graceful(self, sig, frame)

    handle_exit.ends_promptly = True  # type: ignore[attr-defined]
    uvicorn.Server.handle_exit = handle_exit  # type: ignore[method-assign]


def watch_parent(parent: int) -> None:
    """A daemon thread ending the process once `parent` is no longer its parent (judgelab ended, even by kill -9)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_S)
        os._exit(0)

    threading.Thread(target=watch, name="judgelab-watch", daemon=True).start()


def main() -> None:
    """`python -m judges.calls.llama_serve --model ...`: the server with the sampler installed and one compute
    thread, ending with judgelab and promptly on a stop signal."""
    from llama_cpp.server import __main__ as server

    parent = os.environ.get(PARENT_PID, "")
    if parent.isdigit():
        watch_parent(int(parent))
    end_promptly_on_signals()
    install()
    one_compute_thread()
    serve: Any = server.main  # untyped in llama-cpp-python
    serve()


if __name__ == "__main__":
    main()
