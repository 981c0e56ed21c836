"""What a probe is: a named perturbation of a sample and, per metric, what the judge's grade must do under it."""

from __future__ import annotations

import hashlib
from typing import ClassVar, Protocol

from judges.types import GROUSE_METRICS, Sample

SAME = "same"  # invariance: the grade must not move
SWAPPED = "swapped"  # invariance under an exchange: answer 1's and answer 2's grades must trade places
LOWER = "lower"  # sensitivity: the grade of the answer under test must go down
EXPECTATIONS = (SAME, SWAPPED, LOWER)
INVARIANCE = (SAME, SWAPPED)
ORIGINAL = "original"  # the probe name of a sample judged unchanged


def every_metric(expectation: str) -> dict[str, str]:
    """The same expectation for each of the four GroUSE metrics."""
    return dict.fromkeys(GROUSE_METRICS, expectation)


class Probe(Protocol):
    """A perturbation: its name, one line on what it changes, the metrics it checks and what each must do."""

    name: str
    changes: str
    expects: ClassVar[dict[str, str]]  # metric -> SAME | SWAPPED | LOWER

    def apply(self, sample: Sample, key: str) -> Sample | None:
        """The perturbed sample (deterministic in `key`, the item's id), or None when it does not apply."""
        ...


def seed_of(key: str) -> int:
    """A stable seed from an item id (Python's hash() changes from process to process)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
