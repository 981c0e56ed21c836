"""What a probe is: a named perturbation of a sample and, per metric, what the judge's grade must do under it; a
probe applies only where that holds by construction, and otherwise says why it skipped."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from judges.types import ABSTENTION_SENTENCE, GROUSE_METRICS, Sample, UnitTest

SAME = "same"  # invariance: the grade must not move
SWAPPED = "swapped"  # invariance under an exchange: answer 1's and answer 2's grades must trade places
LOWER = "lower"  # sensitivity: the grade of the answer under test must go down
# a bias check: the grade must not go up (words that add no claim may fairly cost a grade: a restated sentence is
# less relevant, an unsourced claim of expertise less faithful; a judge biased by them raises it)
NOT_HIGHER = "not higher"
EXPECTATIONS = (SAME, SWAPPED, LOWER, NOT_HIGHER)
INVARIANCE = (SAME, SWAPPED)
ORIGINAL = "original"  # the probe name of a sample judged unchanged


def every_metric(expectation: str) -> dict[str, str]:
    """The same expectation for each of the four GroUSE metrics."""
    return dict.fromkeys(GROUSE_METRICS, expectation)


@dataclass(frozen=True)
class Skip:
    """Why a probe did not apply to a sample: one short reason, the same words for every sample it fits, so a
    report can count the skips per probe and reason."""

    reason: str


@dataclass(frozen=True)
class Known:
    """What a unit test already knows of its answer under test: its type and its conditions (metric -> condition
    as written, e.g. "==5", "<5", "==None"). A `--data` sample has none: its probes go by the text alone."""

    test_type: str = ""
    conditions: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, test: UnitTest) -> Known:
        return cls(test.test_type, {metric: str(condition) for metric, condition in test.conditions.items()})

    def says(self, metric: str, condition: str) -> bool:
        """True when the test's condition on `metric` is exactly `condition` (e.g. says("faithfulness", "==1"))."""
        return self.conditions.get(metric) == condition

    def perfect(self) -> bool:
        """The conditions say the answer is fully relevant, complete and faithful."""
        return (
            self.says("answer_relevancy", "==5")
            and self.says("completeness", "==5")
            and self.says("faithfulness", "==1")
        )


def abstains(sample: Sample) -> bool:
    """The answer under test begins with the abstention sentence."""
    return (sample.actual_output or "").lstrip().startswith(ABSTENTION_SENTENCE)


def abstains_only(sample: Sample) -> bool:
    """The answer under test is the abstention sentence and nothing else."""
    return (sample.actual_output or "").strip() == ABSTENTION_SENTENCE


class Probe(Protocol):
    """A perturbation: its name, one line on what it changes, the metrics it checks and what each must do."""

    name: str
    changes: str
    expects: ClassVar[dict[str, str]]  # metric -> SAME | SWAPPED | LOWER | NOT_HIGHER

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        """The perturbed sample (deterministic in `key`, the item's id), or a Skip saying why the probe's
        expectation cannot be vouched for on this sample. `known` is the unit test's type and conditions."""
        ...


def seed_of(key: str) -> int:
    """A stable seed from an item id (Python's hash() changes from process to process)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
