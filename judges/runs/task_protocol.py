"""What a kind hands the run core: the `Task` protocol (its items, its check, judging one item into its record)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from judges.records import ItemRecord
from judges.runs.items import Item


class Task(Protocol):
    """A kind of run: its items, a check made before any call, and how to judge one item into its record."""

    @property
    def kind(self) -> str:
        """The kind's name, as registered under `judgelab.kinds` and written in run.json."""
        ...

    @property
    def items(self) -> Sequence[Item]: ...

    @property
    def items_per_slot(self) -> int:
        """Items in flight per call slot (a serial local judge always gets one at a time)."""
        ...

    def check(self) -> None: ...

    def provenance(self) -> dict[str, Any]:
        """What the run's config records once the items are done (e.g. the hashes of the templates used)."""
        ...

    async def run_item(self, item: Item) -> ItemRecord: ...
