"""Text surgery the probes share: citation markers `[n]` (also `[1, 2]`) and sentences with their citations."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# a sentence ends at . ! or ? (and any citations right after it) followed by white space
_SENTENCE_END = re.compile(r"(?<=[.!?])((?:\s*\[\d+(?:\s*,\s*\d+)*\])*)\s+(?=\S)")


def map_citations(text: str, change: Callable[[int], int]) -> str:
    """Every citation number n in `text` replaced by change(n), the markers' shape kept."""

    def one(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        separator = ", " if "," in match.group(1) else ""
        return "[" + separator.join(str(change(n)) for n in numbers) + "]" if separator else f"[{change(numbers[0])}]"

    return CITATION.sub(one, text)


def renumber(text: str, new_number: Mapping[int, int]) -> str:
    """Citations renumbered by `new_number` (old -> new); a number it does not hold is left as written."""
    return map_citations(text, lambda n: new_number.get(n, n))


def cited(text: str) -> list[int]:
    """The citation numbers of `text`, in order of appearance."""
    return [int(n) for group in CITATION.findall(text) for n in re.findall(r"\d+", group)]


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each with the citations written right after its full stop."""
    parts, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        parts.append(text[start : match.start() + len(match.group(1))].strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [part for part in parts if part]
