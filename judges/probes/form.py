"""Probes that change an answer's form and not what it claims: bullets instead of prose, a polite closing line."""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar

from judges.probes.base import SAME, every_metric
from judges.probes.text import sentences
from judges.types import Sample

_BULLET = re.compile(r"^\s*[-*\u2022]\s+")
CLOSING_SENTENCE = "I hope this helps."


def _is_list(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(_BULLET.match(line) for line in lines)


class BulletsVersusProse:
    """The answer under test rewritten as a bulleted list, one sentence per bullet (a list answer is rewritten as
    prose instead); every word and citation kept.

    Invariance: answer_relevancy, completeness, faithfulness and usefulness must stay the same.
    """

    name = "bullets_vs_prose"
    changes = "answer 2's layout: prose as bullets, or bullets as prose"
    expects: ClassVar[dict[str, str]] = every_metric(SAME)

    def apply(self, sample: Sample, key: str) -> Sample | None:
        text = sample.actual_output or ""
        if _is_list(text):
            prose = " ".join(_BULLET.sub("", line).strip() for line in text.splitlines() if line.strip())
            return dataclasses.replace(sample, actual_output=prose)
        parts = sentences(text)
        if len(parts) < 2:
            return None
        return dataclasses.replace(sample, actual_output="\n".join(f"- {part}" for part in parts))


class ClosingSentence:
    """A claim-free closing sentence ("I hope this helps.") added to the end of the answer under test.

    Invariance: answer_relevancy, completeness, faithfulness and usefulness must stay the same (the sentence states
    no fact, so it needs no citation).
    """

    name = "closing_sentence"
    changes = f"answer 2 ends with {CLOSING_SENTENCE!r}"
    expects: ClassVar[dict[str, str]] = every_metric(SAME)

    def apply(self, sample: Sample, key: str) -> Sample | None:
        text = (sample.actual_output or "").rstrip()
        if not text:
            return None
        return dataclasses.replace(sample, actual_output=f"{text} {CLOSING_SENTENCE}")
