"""Probes that change an answer's form and not what it claims: bullets instead of prose, a polite closing line."""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar

from judges.probes.base import SAME, Known, Skip, abstains, abstains_only, every_metric
from judges.probes.text import sentences
from judges.types import ABSTENTION_SENTENCE, Sample

BULLET = re.compile(r"^\s*[-*\u2022]\s+")
_STARTS_SENTENCE = re.compile(r"^[\"'(]?[A-Z0-9]")
CLOSING_SENTENCE = "I hope this helps."


def bulleted(text: str) -> bool:
    """Every line a bullet (after the abstention sentence, when the answer begins with it)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].strip() == ABSTENTION_SENTENCE:
        lines = lines[1:]
    return bool(lines) and all(BULLET.match(line) for line in lines)


def is_list(text: str) -> bool:
    """Two or more lines, each a bullet (after the abstention sentence, when the answer begins with it)."""
    return bulleted(text) and len([line for line in text.splitlines() if BULLET.match(line)]) > 1


def words(text: str) -> list[str]:
    """The words and citations of a text, bullets and layout left out: what a change of form must keep."""
    return " ".join(BULLET.sub("", line) for line in text.splitlines()).split()


def safe_split(parts: list[str]) -> bool:
    """Each part starts as a sentence does (a capital or a figure), so no split fell inside a sentence."""
    return all(_STARTS_SENTENCE.match(part) for part in parts)


class BulletsVersusProse:
    """The answer under test rewritten as a bulleted list, one sentence per bullet (a list answer is rewritten as
    prose instead); every word and citation kept. An answer that abstains keeps its abstention sentence as the
    first line, so it still begins with it.

    Invariance: answer_relevancy, completeness, faithfulness and usefulness must stay the same.
    """

    name = "bullets_vs_prose"
    changes = "answer 2's layout: prose as bullets, or bullets as prose"
    expects: ClassVar[dict[str, str]] = every_metric(SAME)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = sample.actual_output or ""
        lead = ABSTENTION_SENTENCE if abstains(sample) else ""
        body = text.strip().removeprefix(lead).strip()
        if is_list(text):
            lines = [line for line in body.splitlines() if line.strip()]
            changed = " ".join(part for part in [lead, *(BULLET.sub("", line).strip() for line in lines)] if part)
        else:
            parts = sentences(body)
            if len(parts) < 2:
                return Skip("fewer than two sentences to list")
            if not safe_split(parts):
                return Skip("a sentence split it cannot vouch for")
            changed = "\n".join([lead] * bool(lead) + [f"- {part}" for part in parts])
        if words(changed) != words(text):  # its own check: every word and citation kept, in order
            return Skip("the new layout changed a word")
        return dataclasses.replace(sample, actual_output=changed)


class ClosingSentence:
    """A claim-free closing sentence ("I hope this helps.") added to the end of the answer under test. Not added to
    an answer that is the abstention sentence alone (it would no longer be only that).

    Invariance: answer_relevancy, completeness, faithfulness and usefulness must stay the same (the sentence states
    no fact, so it needs no citation).
    """

    name = "closing_sentence"
    changes = f"answer 2 ends with {CLOSING_SENTENCE!r}"
    expects: ClassVar[dict[str, str]] = every_metric(SAME)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = (sample.actual_output or "").rstrip()
        if not text:
            return Skip("no answer")
        if abstains_only(sample):
            return Skip("the answer is the abstention sentence alone")
        if text.endswith(CLOSING_SENTENCE):
            return Skip("the answer already ends with the sentence")
        return dataclasses.replace(sample, actual_output=f"{text}{joiner(text)}{CLOSING_SENTENCE}")


def joiner(text: str) -> str:
    """What goes between an answer and a sentence added after it: a new line after a list, else a space."""
    return "\n" if is_list(text) else " "
