"""Probes that change what the answer under test claims: a cited fact dropped, a claim added, a citation moved."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from judges.probes.base import LOWER, SAME, Known, Skip, abstains, abstains_only
from judges.probes.form import bulleted, is_list
from judges.probes.text_surgery import (
    CITATION,
    citation_groups,
    cited,
    duplicated_citation,
    key_terms,
    lower_words,
    names,
    numbers,
    sentence_spans,
    sentences,
    share_found,
    without_span,
)
from judges.types import ABSTENTION_SENTENCE, Sample

# invented on purpose: no reference of any sample is expected to state it
UNSUPPORTED_CLAIM = "This was confirmed in 2011 by a survey of 40,000 people in Greenland"
CARRIED = 0.6  # a sentence's content is in the reference answer when this share of its key terms is
OWN_TERMS = 3  # ... and at least this many of those terms are said nowhere else in the answer
SUPPORTED = 0.5  # a sentence is supported by what it cites when those references hold this share of its key terms
FOREIGN = 0.3  # a reference holds a claim's key terms when it has more than this share of them
UNFAITHFUL = "its conditions say the answer is already unfaithful or has no faithfulness grade"


class DropCitedFact:
    """A cited sentence whose content the reference answer also carries removed from the answer under test: the
    last such sentence, and only when another cited sentence remains; the rest is left word for word, in its layout.
    On a unit test it applies only when the conditions say the answer is relevant, complete and faithful (so the
    dropped sentence is never a test's planted defect: an off-topic fact, an invented or miscited claim, related
    information after a refusal); on any sample, never to an answer that abstains (a refusal's completeness does
    not move), and only to a sentence whose figures and names the reference answer states, whose key terms it holds
    (most of them, three of them said nowhere else in the answer), and whose cited references hold half of them.

    Sensitivity: completeness must go lower. Invariance: faithfulness must stay the same (what remains is as well
    cited). Answer relevancy is not declared: GroUSE's own missing-information tests allow it to drop one grade
    (Low completeness 1: relevancy >=4), and a blind grader marked it down where the dropped sentence answered a
    part of the question.
    """

    name = "drop_cited_fact"
    changes = "answer 2 loses a cited sentence the reference answer also states"
    expects: ClassVar[dict[str, str]] = {"completeness": LOWER, "faithfulness": SAME}

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        if known is not None and not known.perfect():
            return Skip("its conditions do not say the answer is relevant, complete and faithful")
        if abstains(sample):
            return Skip("the answer abstains: its completeness does not move")
        reference = sample.expected_output or ""
        if not reference.strip() or reference.strip().startswith(ABSTENTION_SENTENCE):
            return Skip("no reference answer to say which content is needed")
        text = sample.actual_output or ""
        spans = sentence_spans(text)
        parts = [text[start:end] for start, end in spans]
        with_citation = [i for i, part in enumerate(parts) if cited(part)]
        if len(with_citation) < 2:
            return Skip("fewer than two cited sentences")
        references = sample.references or ()
        chosen = next(
            (i for i in reversed(with_citation) if _carried(i, parts, reference) and _supported(parts[i], references)),
            None,
        )
        if chosen is None:
            return Skip("no cited, supported sentence whose content only the reference answer also carries")
        changed = without_span(text, *spans[chosen])
        # its own check: exactly that sentence gone, the rest as it was and in the same layout
        if sentences(changed) != parts[:chosen] + parts[chosen + 1 :] or bulleted(changed) != bulleted(text):
            return Skip("the answer without the sentence could not be checked")
        return dataclasses.replace(sample, actual_output=changed)


def _supported(sentence: str, references: tuple[str, ...]) -> bool:
    """The references the sentence cites hold at least half of its key terms (so it is not a miscited sentence, whose
    removal would make the answer more faithful)."""
    cited_text = " ".join(references[n - 1] for n in cited(sentence) if 1 <= n <= len(references))
    return share_found(key_terms(sentence), cited_text) >= SUPPORTED


def _carried(index: int, parts: list[str], reference: str) -> bool:
    """The sentence's figures and names are all in the reference answer, most of its key terms too, and at least
    OWN_TERMS of those are said nowhere else in the answer (so dropping it loses them)."""
    sentence = parts[index]
    terms = key_terms(sentence)
    if not (numbers(sentence) <= numbers(reference) and names(sentence) <= lower_words(reference)):
        return False
    if share_found(terms, reference) < CARRIED:
        return False
    elsewhere = set().union(*(key_terms(part) for n, part in enumerate(parts) if n != index))
    return len((terms & key_terms(reference)) - elsewhere) >= OWN_TERMS


class UnsupportedClaim:
    """A sentence no reference supports, citing the first reference, added to the end of the answer under test.
    Not applied where faithfulness cannot go lower: an answer that is the abstention sentence alone (no faithfulness
    grade), or a unit test whose conditions already make it unfaithful.

    Sensitivity: faithfulness must go lower.
    """

    name = "unsupported_claim"
    changes = "answer 2 gains an invented claim citing reference 1"
    expects: ClassVar[dict[str, str]] = {"faithfulness": LOWER}

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = (sample.actual_output or "").rstrip()
        if not text or not sample.references:
            return Skip("no answer or no references")
        if abstains_only(sample) or (known is not None and not known.says("faithfulness", "==1")):
            return Skip(UNFAITHFUL)
        if any(share_found(key_terms(UNSUPPORTED_CLAIM), ref) > FOREIGN for ref in sample.references):
            return Skip("a reference holds the invented claim's terms")
        joined = "\n" if is_list(text) else " "
        return dataclasses.replace(sample, actual_output=f"{text}{joined}{UNSUPPORTED_CLAIM} [1].")


class WrongCitation:
    """The first citation of the answer under test that names one reference alone (not `[1][4]`) moved to a
    reference the sentence does not cite and that does not hold the key terms of the claim before the citation (the
    one holding fewest of them, and at most 30%; on a tie, the one holding fewest of the whole answer's); only that number changes, so no group of adjacent citations ends
    up naming a reference twice (checked on the result). Not applied where faithfulness cannot go lower (a
    unit test whose conditions already make the answer unfaithful).

    Sensitivity: faithfulness must go lower.
    """

    name = "wrong_citation"
    changes = "answer 2's first single citation points at a reference that does not state its claim"
    expects: ClassVar[dict[str, str]] = {"faithfulness": LOWER}

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = sample.actual_output or ""
        references = sample.references or ()
        if len(references) < 2:
            return Skip("fewer than two references")
        if known is not None and not known.says("faithfulness", "==1"):
            return Skip(UNFAITHFUL)
        for start, end in sentence_spans(text):
            sentence = text[start:end]
            groups = citation_groups(sentence)
            if groups and len(groups[0]) == 1 and not sentence.startswith(ABSTENTION_SENTENCE):
                break
        else:
            return Skip("no sentence whose first citation names one reference")
        marker = CITATION.search(sentence)
        assert marker is not None  # the sentence cites
        if not all(1 <= n <= len(references) for n in cited(sentence)):
            return Skip("a citation names no reference")
        terms = key_terms(sentence[: marker.start()])  # the claim the moved citation stands for
        others = [n for n in range(1, len(references) + 1) if n not in cited(sentence)]
        if not others:
            return Skip("every reference is cited in the sentence")
        answer_terms = key_terms(text)
        share, _, new = min(  # fewest of the claim's terms; on a tie, the reference least about the answer at all
            (share_found(terms, references[n - 1]), share_found(answer_terms, references[n - 1]), n) for n in others
        )
        if share > FOREIGN:
            return Skip("every other reference holds the claim's key terms")
        moved = sentence[: marker.start()] + f"[{new}]" + sentence[marker.end() :]
        changed = text[:start] + moved + text[end:]
        # its own check: one number changed, to an existing reference, and no group names a reference twice
        if cited(changed).count(new) != cited(text).count(new) + 1 or duplicated_citation(changed):
            return Skip("the moved citation could not be checked")
        return dataclasses.replace(sample, actual_output=changed)
