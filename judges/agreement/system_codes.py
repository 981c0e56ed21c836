"""Each item's system as a small integer code, and what a system-aware figure keeps of it for pairing judges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SystemItems:
    """The systems of the measured items (in the measured item order): their names, each item's code into them,
    and whether the judge's values were cut (binary labels: the macro balanced accuracy needs the 0/1 call)."""

    names: tuple[str, ...]
    codes: np.ndarray  # (items,) int32
    has_cut: bool


def system_codes(systems: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The sorted distinct names and each item's index into them (a few names: no array of a million strings to
    sort)."""
    names = sorted(set(systems))
    index = {name: k for k, name in enumerate(names)}
    return names, np.fromiter((index[s] for s in systems), dtype=np.int64, count=len(systems))
