"""The bootstrap's blocks of resamples computed on two threads where the rows are many, their results in order.

numpy releases the GIL in what a block of resamples costs at scale (draw counts, reorderings, sums, cumulative
sums), so two blocks computed at once use both cores of a 2-core machine. The blocks are still drawn one after the
other from the one seeded generator (in the calling thread) and each block's results come back in the blocks'
order, so every figure is the one a single thread gives, bit for bit. The calling thread computes one block of each
pair itself and a pool thread the other, so only one thread's malloc arena holds blocks (see below); at most four
blocks are held at once (the next pair is drawn while the pool thread finishes), which bounds the memory added. Below `PARALLEL_ROWS` rows, with one core, or with `JUDGELAB_THREADS=1`,
the blocks are computed in the calling thread, without a pool.

A pool thread's blocks are allocated in glibc's per-thread arena, which keeps much of what is freed there mapped
(tens of MB at a million rows, on top of what the next stages allocate); so once the pool is done the freed memory
is handed back to the system (`malloc_trim`, where the C library has it).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import TypeVar

from judges.errors import ConfigError

Block = TypeVar("Block")
Result = TypeVar("Result")

PARALLEL_ROWS = 200_000  # fewer rows and a block takes too little time for a second thread to gain anything
MAX_THREADS = 2  # each block in flight holds a few row-length arrays: two stay well inside the memory goal
THREADS_ENV = "JUDGELAB_THREADS"


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def threads(rows: int) -> int:
    """How many threads compute blocks over `rows` label rows: 1 below `PARALLEL_ROWS`, else the cores (at most
    `MAX_THREADS`), and never more than $JUDGELAB_THREADS (1 turns the pool off)."""
    if rows < PARALLEL_ROWS:
        return 1
    wanted = MAX_THREADS
    text = os.environ.get(THREADS_ENV, "").strip()
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ConfigError(f"{THREADS_ENV}={text!r}: expected a whole number of threads, 1 or more")
        wanted = int(text)
    return max(1, min(wanted, cores(), MAX_THREADS))


def in_order(work: Callable[[Block], Result], blocks: Iterable[Block], workers: int) -> Iterator[Result]:
    """`work` of each block, in the blocks' order; with more than 1 worker, `workers` blocks at a time, the first in
    this thread and the others on a pool of `workers - 1` threads; the next ones are taken from `blocks` (in this
    thread) and queued on the pool before this thread waits for the pool's: at most `2 * workers` blocks held."""
    if workers <= 1:
        yield from map(work, blocks)
        return
    drawn = iter(blocks)
    pool = ThreadPoolExecutor(max_workers=workers - 1, thread_name_prefix="judgelab-bootstrap")
    try:
        batch = list(islice(drawn, workers))
        helped = [pool.submit(work, block) for block in batch[1:]]
        while batch:
            own = work(batch[0])
            batch = list(islice(drawn, workers))
            following = [pool.submit(work, block) for block in batch[1:]]  # queued: the pool never waits for us
            yield own
            for future in helped:
                yield future.result()
            helped = following
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        release_freed()


def release_freed() -> None:
    """Give the memory freed in every malloc arena back to the system (glibc's `malloc_trim`; elsewhere nothing)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc (no such symbol; no process handle on Windows)
        return
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)
