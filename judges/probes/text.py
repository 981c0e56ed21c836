"""Text surgery the probes share: citation markers `[n]` (also `[1, 2]`), sentences with their citations and
where they stand, and the content words by which a sentence's claim is found in another text."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
# adjacent markers citing one sentence together: `[1][4]`, `[1] [4]`, `[1, 4]`
CITATION_GROUP = re.compile(r"\[\d+(?:\s*,\s*\d+)*\](?:\s*\[\d+(?:\s*,\s*\d+)*\])*")
# a sentence ends at . ! or ? (and any citations right after it) followed by white space
_SENTENCE_END = re.compile(r"(?<=[.!?])((?:\s*\[\d+(?:\s*,\s*\d+)*\])*)\s+(?=\S)")
# a full stop after these is an abbreviation's, not a sentence's end ("e.g. the", "s. 12", "etc. Regulations")
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:e\.g|i\.e|etc|cf|vs|no|nos|art|arts|s|ss|sec|para|paras|reg|regs|sch|mr|mrs|ms|dr|st)\.$",
    re.IGNORECASE,
)
BULLET_OR_LABEL = re.compile(r"^\s*(?:[-*\u2022]\s+)?(?:[^:.!?]{1,40}:\s+)?")  # "- Leave: " before a list item
_WORD = re.compile(r"[a-z0-9£$€%]+(?:[.,][0-9]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_WORDS = frozenset(
    [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
        "half",
        "halves",
        "third",
        "thirds",
        "quarter",
        "quarters",
        "fifth",
        "tenth",
        "twice",
        "thrice",
        "double",
        "triple",
        "once",
        "first",
        "second",
    ]
)
# words that say nothing of a claim's content; the rest are its key terms
_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "nor",
        "of",
        "to",
        "in",
        "on",
        "for",
        "by",
        "with",
        "at",
        "from",
        "as",
        "is",
        "are",
        "be",
        "been",
        "being",
        "must",
        "may",
        "might",
        "can",
        "could",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "their",
        "there",
        "them",
        "they",
        "which",
        "who",
        "whom",
        "whose",
        "not",
        "no",
        "any",
        "all",
        "each",
        "other",
        "under",
        "than",
        "then",
        "also",
        "into",
        "onto",
        "only",
        "such",
        "if",
        "when",
        "where",
        "what",
        "how",
        "why",
        "was",
        "were",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "should",
        "shall",
        "per",
        "upon",
        "about",
        "so",
        "very",
        "more",
        "most",
        "less",
        "least",
        "some",
        "own",
        "same",
        "both",
        "either",
        "neither",
    ]
)


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


def citation_groups(text: str) -> list[list[int]]:
    """The numbers of each group of adjacent citation markers, e.g. "a [1][2]. b [3, 1]." -> [[1, 2], [3, 1]]."""
    return [cited(match.group(0)) for match in CITATION_GROUP.finditer(text)]


def duplicated_citation(text: str) -> bool:
    """True when one group of adjacent markers cites a reference twice (`[2][2]`, `[2, 2]`)."""
    return any(len(group) != len(set(group)) for group in citation_groups(text))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` stands (start, end), its citations written after the full stop included; a line
    break always ends a sentence (a list's item, or a line that introduces a list)."""
    spans, offset = [], 0
    for line in text.splitlines(keepends=True):
        start = 0
        for match in _SENTENCE_END.finditer(line):
            if not match.group(1) and _ABBREVIATION.search(line[start : match.start()]):
                continue
            spans.append((offset + start, offset + match.start() + len(match.group(1))))
            start = match.end()
        spans.append((offset + start, offset + len(line)))
        offset += len(line)
    trimmed = []
    for begin, end in spans:
        piece = text[begin:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            trimmed.append((begin + lead, begin + len(piece.rstrip())))
    return trimmed


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each with the citations written right after its full stop."""
    return [text[start:end] for start, end in sentence_spans(text)]


def without_span(text: str, start: int, end: int) -> str:
    """`text` with [start, end) removed and the white space that separated it from what followed (or, at the end,
    from what came before), so the rest keeps its layout (a list stays one item a line)."""
    tail = text[end:]
    return text[:start] + tail.lstrip() if tail.strip() else text[:start].rstrip()


def key_terms(text: str) -> set[str]:
    """A text's content words, lower-cased, citations left out, a plural's final s dropped (`weeks` -> `week`)."""
    words = _WORD.findall(CITATION.sub(" ", text).lower())
    return {word.removesuffix("s") for word in words if word not in _STOPWORDS and (len(word) > 2 or word.isdigit())}


def share_found(terms: set[str], text: str) -> float:
    """The share of `terms` that `text` also holds (0.0 for no terms)."""
    return len(terms & key_terms(text)) / len(terms) if terms else 0.0


def numbers(text: str) -> set[str]:
    """The figures a text states, in digits or in words ("one third", "twice"), citation numbers left out."""
    plain = CITATION.sub(" ", text)
    return set(_NUMBER.findall(plain)) | (set(re.findall(r"[a-z]+", plain.lower())) & _NUMBER_WORDS)


def lower_words(text: str) -> set[str]:
    """Every word of a text, lower-cased, as written (no stop word or plural dropped)."""
    return set(re.findall(r"[a-z][a-z'-]*", text.lower()))


def names(text: str) -> set[str]:
    """The capitalised words of a text that do not open a sentence (names, titles, months), lower-cased."""
    found = set()
    for sentence in sentences(text):
        words = re.findall(r"[A-Za-z][A-Za-z'-]*", BULLET_OR_LABEL.sub("", sentence))
        found |= {word.lower() for word in words[1:] if word[0].isupper()}
    return found
