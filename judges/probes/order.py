"""Probes that reorder what the judge sees: the references, and the two answers of a two-answer prompt."""

from __future__ import annotations

import dataclasses
import random
from typing import ClassVar

from judges.probes.base import SAME, SWAPPED, Known, Skip, every_metric, seed_of
from judges.probes.text import cited, renumber
from judges.types import Sample


class ShuffleReferences:
    """The references in another order (seeded by the item id), every citation in both answers renumbered so it
    still points at the same text.

    Invariance: answer_relevancy, completeness, faithfulness and usefulness must stay the same.
    """

    name = "shuffle_references"
    changes = "reference order (citations renumbered to match)"
    expects: ClassVar[dict[str, str]] = every_metric(SAME)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        references = list(sample.references or ())
        if len(references) < 2:
            return Skip("fewer than two references")
        answers = [text for text in (sample.actual_output, sample.expected_output) if text]
        if any(not 1 <= n <= len(references) for text in answers for n in cited(text)):
            return Skip("a citation names no reference")
        order = list(range(len(references)))
        random.Random(seed_of(key)).shuffle(order)
        if order == sorted(order):  # the identity: rotate by one instead, so something always moves
            order = order[1:] + order[:1]
        # order[new_place] = old index; citations are 1-based
        new_number = {old + 1: new + 1 for new, old in enumerate(order)}
        changed = dataclasses.replace(
            sample,
            references=tuple(references[old] for old in order),
            actual_output=_renumbered(sample.actual_output, new_number),
            expected_output=_renumbered(sample.expected_output, new_number),
        )
        # its own check: every citation of both answers still points at the same text
        for before, after in (
            (sample.actual_output, changed.actual_output),
            (sample.expected_output, changed.expected_output),
        ):
            if (
                before
                and after
                and [references[n - 1] for n in cited(before)]
                != [(changed.references or ())[n - 1] for n in cited(after)]
            ):
                return Skip("the renumbered citations could not be checked")
        return changed


def _renumbered(text: str | None, new_number: dict[int, int]) -> str | None:
    return None if text is None else renumber(text, new_number)


class SwapAnswers:
    """Answer 1 (the reference answer) and answer 2 (the answer under test) exchanged in the GroUSE two-answer
    prompt.

    Invariance under the exchange: for answer_relevancy, completeness, faithfulness and usefulness, the grade the
    judge gave answer 1 must now go to answer 2 and the other way round (swapped). A prompt that grades answer 2
    alone (the compact set) gives no grade to answer 1, so this probe measures nothing there.
    """

    name = "swap_answers"
    changes = "answer 1 and answer 2 exchanged"
    expects: ClassVar[dict[str, str]] = every_metric(SWAPPED)

    def apply(self, sample: Sample, key: str, known: Known | None = None) -> Sample | Skip:
        if not sample.expected_output or not sample.actual_output:
            return Skip("no reference answer or no answer")
        if sample.expected_output.strip() == sample.actual_output.strip():
            return Skip("the two answers are the same text")
        return dataclasses.replace(sample, expected_output=sample.actual_output, actual_output=sample.expected_output)
