"""The rubric shown beside an item: the metric's paragraph of a prompt set's template, or a short text per metric."""

from __future__ import annotations

from judges.judging.prompts import load_prompt_set
from judges.types import GROUSE_METRICS

RUBRICS = {
    "faithfulness": (
        "Is every statement of the answer backed by the reference it cites? 1 = every sentence cites a "
        "reference that really says it, without changing, exaggerating or adding to it; 0 = at least one "
        "sentence fails. Null when the answer only says that no document answers the question."
    ),
    "answer_relevancy": (
        "Does the answer address the question, and only the question (ignore whether facts are correct)? "
        "5 = everything addresses it; 4 = a little unneeded information; 3 = much unneeded or off-topic "
        "information; 2 = mostly off-topic; 1 = does not address it. Null when the answer says no document answers."
    ),
    "completeness": (
        "Does the answer give everything the references hold that answers the question? 5 = all of it; "
        "1 = none of it. Null when the references hold nothing that answers."
    ),
    "usefulness": (
        "For an answer that says no document answers: does the related information it adds help? 1 = useful, "
        "0 = not useful. Null when the answer does not abstain or adds nothing."
    ),
}
START, END = "Metric:", "Grade the two answers"


def rubric_from_template(source: str) -> str | None:
    """The rubric paragraph of a GroUSE-style template: from the `Metric:` line to the grading instructions."""
    start = source.find(START)
    if start < 0:
        return None
    end = source.find(END, start)
    text = source[start : end if end > 0 else None].strip()
    return text or None


def rubric_for(metric: str, prompts: str | None = "default", text: str | None = None) -> str:
    """`text` when given; else the rubric of `prompts`' template for the metric; else the short text above."""
    if text:
        return text
    if prompts is not None and metric in GROUSE_METRICS:
        found = rubric_from_template(load_prompt_set(prompts).templates[metric].source)
        if found:
            return found
    return RUBRICS.get(metric, f"Label the answer for {metric} on the scale below.")
