"""Text helpers for the RAG metrics: sentence splitting, TRACe sentence keys and entity normalization."""

from __future__ import annotations

import re
import unicodedata

# A sentence ends at . ! or ? (optionally followed by a closing quote or bracket), then space, then a capital,
# a digit or an opening quote / bracket.
_BOUNDARY = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|No|vs|etc|e\.g|i\.e|cf|Fig|Art|Sec|s)\.)$", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_PUNCT = re.compile(r"[^\w\s]")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, line by line; no split after common abbreviations ("Dr.", "e.g.", "s.")."""
    sentences: list[str] = []
    for line in text.splitlines():
        pieces = [p.strip() for p in _BOUNDARY.split(line.strip()) if p.strip()]
        merged: list[str] = []
        for piece in pieces:
            if merged and _ABBREVIATION.search(merged[-1]):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        sentences.extend(merged)
    return sentences


def letter_key(index: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "aa": the sentence letters of TRACe keys."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def keyed_sentences(text: str, prefix: str = "") -> dict[str, str]:
    """{"0a": first sentence, "0b": ...} for a document (prefix "0"), {"a": ...} for the response."""
    return {f"{prefix}{letter_key(i)}": sentence for i, sentence in enumerate(split_sentences(text))}


def normalize_entity(text: str) -> str:
    """Casefolded, accents and punctuation removed, leading article dropped: "The U.K." -> "uk"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    plain = _PUNCT.sub("", plain)
    return _ARTICLE.sub("", " ".join(plain.split()))
