"""`tune --dry-run`'s rehearsal: the whole job replayed from the cache alone, to count the replies a rerun replays."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import tempfile
from pathlib import Path

from judges.calls.allowance import replay_only
from judges.errors import JudgelabError
from judges.tuning.pipeline import TuneJob, tune


def rehearse(job: TuneJob) -> int | None:
    """The replies a rerun of `job` would replay, when the whole job (the search, whose later rounds follow from the
    replies, the tuned run on train and the test-split runs) replays from the cache with no call to make; None at
    the first reply the cache lacks (or any other stop), or with no cache file.

    Nothing can be sent: the runs get `--cache-mode replay` and no executor, and run inside `replay_only`, so a miss
    raises ReplayMiss before any backend is asked. The budgets stay as given (the search takes the rerun's path);
    the outputs go to a temporary folder, deleted after; progress and warnings are not shown."""

    if job.options.cache_mode == "off" or not Path(job.options.cache).is_file():
        return None
    options = job.options.merged(cache_mode="replay", executor="local")
    assert options.cache_mode == "replay" and options.executor == "local"
    with tempfile.TemporaryDirectory(prefix="judgelab-tune-dry-run-") as folder, replay_only():
        rehearsal = dataclasses.replace(job, options=options, out=Path(folder) / "out", progress=lambda _: None)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                outcome = tune(rehearsal)
        except JudgelabError:  # ReplayMiss stops a run; the runner raises the stop (or the miss itself)
            return None
    ledgers = (outcome.search_ledger, outcome.report_ledger)
    if any(ledger.new_calls for ledger in ledgers):  # never so under `replay_only`: a guard on the count
        return None
    return sum(ledger.cached_calls for ledger in ledgers)


def replayed_line(replayed: int) -> str:
    return (
        f"dry run: 0 calls to make ({replayed} already cached): the search and the test-split runs replay from the "
        "cache. Nothing was called."
    )
