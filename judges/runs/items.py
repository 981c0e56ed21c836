"""A run's items: `Item`, and `ItemsOf`, a run's entries numbered as items as they are read (never copied)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload


@dataclass(frozen=True)
class Item:
    """One unit of work: a unit test (one draw of it) or a sample; `order` is its place in the run."""

    id: str
    order: int
    payload: Any
    draw: int = 0


class ItemsOf(Sequence[Item]):
    """`entries` (a list, or a file read as the run goes) as items: entry n is `make(n, entry)`."""

    def __init__(self, entries: Sequence[Any], make: Callable[[int, Any], Item]) -> None:
        self.entries, self.make = entries, make

    def __len__(self) -> int:
        return len(self.entries)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...

    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        position = range(len(self))[index]
        return self.make(position, self.entries[position])

    def __iter__(self) -> Iterator[Item]:
        return (self.make(order, entry) for order, entry in enumerate(self.entries))
