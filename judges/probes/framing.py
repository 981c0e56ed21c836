"""Probes for the judge biases the literature names that add words but no claim: verbosity (the answer's own content
said again) and authority (a claimed expertise in front of the answer)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from judges.probes.base import NOT_HIGHER, Known, Skip, abstains, abstains_only, every_metric
from judges.probes.form import BULLET, is_list, joiner
from judges.probes.text_surgery import cited, sentences
from judges.types import ABSTENTION_SENTENCE, Sample

RESTATEMENT = "To restate the first point:"
# claimed expertise in no named field: "As a legal expert" before a medicine or sport answer would be a false,
# off-topic claim a careful grader could fairly mark down, so the preface names none
AUTHORITY = "As an expert on this subject, I can confirm:"


class Verbosity:
    """The answer under test made longer with nothing new: its first cited sentence said again, word for word with
    its citations, after "To restate the first point:" (verbosity bias: Zheng et al. 2023, "Judging LLM-as-a-Judge
    with MT-Bench and Chatbot Arena", section 3.3). Not applied to an answer that is the abstention sentence alone.

    Never higher: answer_relevancy, completeness, faithfulness and usefulness must not go up (no new claim, the
    repeated one cited as before; a judge biased towards longer answers raises them). Not "stay": a restated sentence
    may fairly cost answer relevancy, as both graders of a blind audit of these pairs judged (12 of 12).
    """

    name = "verbosity"
    changes = f"answer 2 ends with {RESTATEMENT!r} and its own first cited sentence again"
    expects: ClassVar[dict[str, str]] = every_metric(NOT_HIGHER)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = (sample.actual_output or "").rstrip()
        if abstains_only(sample) or not text:
            return Skip("no claim to restate: the answer is empty or the abstention sentence alone")
        first = next(
            (p for p in sentences(text) if cited(p) and not p.startswith(ABSTENTION_SENTENCE) and "\n" not in p), None
        )
        if first is None:
            return Skip("no cited sentence to restate")
        said = BULLET.sub("", first).strip()
        changed = f"{text}{joiner(text)}{RESTATEMENT} {said}"
        if said not in text or sorted(cited(changed)) != sorted(cited(text) + cited(said)):  # its own check
            return Skip("the restatement could not be checked")
        return dataclasses.replace(sample, actual_output=changed)


class AuthorityFraming:
    """The answer under test opened with a claimed expertise, "As an expert on this subject, I can confirm:" (authority bias:
    Chen et al. 2024, "Humans or LLMs as the Judge? A Study on Judgement Bias"); the answer itself is left word for
    word. Not applied to an answer that abstains: it must begin with the abstention sentence.

    Never higher: answer_relevancy, completeness, faithfulness and usefulness must not go up (the preface states
    nothing about the question and cites nothing; a judge swayed by authority raises them). Not "stay": an unsourced
    claim of expertise may fairly cost faithfulness, as one grader of a blind audit judged (6 of 12).
    """

    name = "authority_framing"
    changes = f"answer 2 begins with {AUTHORITY!r}"
    expects: ClassVar[dict[str, str]] = every_metric(NOT_HIGHER)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        text = (sample.actual_output or "").strip()
        if not text:
            return Skip("no answer")
        if abstains(sample):
            return Skip("the answer abstains: it must begin with the abstention sentence")
        separator = "\n" if is_list(text) else " "
        return dataclasses.replace(sample, actual_output=f"{AUTHORITY}{separator}{text}")
