"""Probes that change what the answer under test claims: a cited fact dropped, a claim added, a citation moved."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from judges.probes.base import LOWER, SAME
from judges.probes.text import CITATION, cited, sentences
from judges.types import ABSTENTION_SENTENCE, Sample

# invented on purpose: no reference of any sample is expected to state it
UNSUPPORTED_CLAIM = "This was confirmed in 2011 by a survey of 40,000 people in Greenland"


class DropCitedFact:
    """The last cited sentence of the answer under test removed (the answer must keep at least one other cited
    sentence); the rest is left word for word.

    Sensitivity: completeness must go lower. Invariance: answer_relevancy and faithfulness must stay the same
    (what remains is as relevant and as well cited).
    """

    name = "drop_cited_fact"
    changes = "answer 2 loses its last cited sentence"
    expects: ClassVar[dict[str, str]] = {"completeness": LOWER, "answer_relevancy": SAME, "faithfulness": SAME}

    def apply(self, sample: Sample, key: str) -> Sample | None:
        parts = sentences(sample.actual_output or "")
        with_citation = [i for i, part in enumerate(parts) if cited(part) and not part.startswith(ABSTENTION_SENTENCE)]
        if len(with_citation) < 2:
            return None
        kept = [part for i, part in enumerate(parts) if i != with_citation[-1]]
        return dataclasses.replace(sample, actual_output=" ".join(kept))


class UnsupportedClaim:
    """A sentence no reference supports, citing the first reference, added to the end of the answer under test.

    Sensitivity: faithfulness must go lower.
    """

    name = "unsupported_claim"
    changes = "answer 2 gains an invented claim citing reference 1"
    expects: ClassVar[dict[str, str]] = {"faithfulness": LOWER}

    def apply(self, sample: Sample, key: str) -> Sample | None:
        text = (sample.actual_output or "").rstrip()
        if not text or not sample.references:
            return None
        return dataclasses.replace(sample, actual_output=f"{text} {UNSUPPORTED_CLAIM} [1].")


class WrongCitation:
    """The first citation of the answer under test moved to the next reference (the last wraps round to the
    first); only that number changes.

    Sensitivity: faithfulness must go lower.
    """

    name = "wrong_citation"
    changes = "answer 2's first citation points at the next reference"
    expects: ClassVar[dict[str, str]] = {"faithfulness": LOWER}

    def apply(self, sample: Sample, key: str) -> Sample | None:
        text = sample.actual_output or ""
        count = len(sample.references or ())
        match = CITATION.search(text)
        if match is None or count < 2:
            return None
        first = cited(match.group(0))[0]
        if not 1 <= first <= count:
            return None
        moved = first % count + 1
        marker = match.group(0).replace(str(first), str(moved), 1)
        return dataclasses.replace(sample, actual_output=text[: match.start()] + marker + text[match.end() :])
