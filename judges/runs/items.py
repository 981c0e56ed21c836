"""A run's items: `Item`, and `ItemsOf`, a run's entries numbered as items as they are read (never copied)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from judges.files.record_file import OnDemand


@dataclass(frozen=True)
class Item:
    """One unit of work: a unit test (one draw of it) or a sample; `order` is its place in the run."""

    id: str
    order: int
    payload: Any
    draw: int = 0


class ItemsOf(OnDemand[Item]):
    """`entries` (a list, or a file read as the run goes) as items: entry n is `make(n, entry)`."""

    def __init__(self, entries: Sequence[Any], make: Callable[[int, Any], Item]) -> None:
        self.entries, self.make = entries, make

    def __len__(self) -> int:
        return len(self.entries)

    def at(self, index: int) -> Item:
        return self.make(index, self.entries[index])

    def __iter__(self) -> Iterator[Item]:
        return (self.make(order, entry) for order, entry in enumerate(self.entries))
