"""The garbage collector kept off the objects alive before a run (imports, tables, the inputs) while it runs."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Move every object tracked now to the collector's permanent generation for the block, and back after it.

    A full collection walks the whole heap: with a large client library or data frames loaded it takes tens to
    hundreds of milliseconds, and a run that allocates many objects triggers several. Objects made during the
    block are collected as usual. A process that froze its heap itself (before forking workers) is left as it is.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
