"""A pairwise judge: which of two answers to one question is better, asked in both orders; when the two orders
disagree the verdict is a tie and the position bias is counted (the swap that MT-Bench's pairwise judge and
LangChain's pairwise string evaluator leave to the user)."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

from judges.judging.replies import ReplyError, extract_json
from judges.rag.parsing import as_text, field, reason_schema
from judges.rag.spec import Scored

if TYPE_CHECKING:
    from judges.rag.scope import MetricRun

SCHEMA = {
    "type": "object",
    "properties": {"reason": reason_schema(), "preference": {"enum": ["A", "B", "tie"]}},
    "required": ["reason", "preference"],
}
# the verdict's value, as preference labels have it (judges.labels.schema.LabelType.PREFERENCE): the sample's own
# answer (A) preferred -1, the alternative (B) +1, a tie 0; so `agreement` scores a pairwise run on preference labels
VALUES = {"A": -1.0, "B": 1.0, "tie": 0.0}
SWAP = {"A": "B", "B": "A", "tie": "tie"}
# a template declaring `{# reply_format: grade_only #}` asks for words, not JSON (LLMBar's prompts: "Output (a)" or
# "Output (b)", read as LLMBar's own parsing reads them: the phrase at the start of a line)
OUTPUT_PHRASE = re.compile(r"(?:^|\n) ?Output \(([ab])\)")
WORD = re.compile(r"^\W*(a|b|tie)\W*$", re.IGNORECASE)


def _preference(obj: Any) -> dict[str, str]:
    said = as_text(field(obj, "preference")).strip().strip(".").lower()
    letter = {"a": "A", "b": "B", "tie": "tie"}.get(said)
    if letter is None:
        raise ReplyError(f"preference must be A, B or tie, got {said!r}")
    return {"preference": letter, "reason": as_text(obj.get("reason"))}


def _preference_words(text: str) -> dict[str, str]:
    """A words reply: LLMBar's "Output (a)"/"Output (b)" (the first one said), a lone A, B or tie, or the JSON object."""
    said = OUTPUT_PHRASE.search(text)
    if said:
        return {"preference": said.group(1).upper(), "reason": ""}
    word = WORD.match(text.strip())
    if word:
        return {"preference": {"a": "A", "b": "B", "tie": "tie"}[word.group(1).lower()], "reason": ""}
    try:
        return _preference(extract_json(text))
    except ReplyError as err:
        raise ReplyError('expected "Output (a)", "Output (b)", A, B or tie', err.kind) from None


async def preference(run: MetricRun) -> Scored:
    """A (the sample's `actual_output`), B (its `alternative_output`) or tie: asked with A first, then with B first;
    each reply mapped back to the answers' own names; orders that disagree make a tie."""
    sample = run.sample
    answers = (sample.actual_output, sample.alternative_output)
    words = run.judge.prompts.template("pairwise_preference").reply_format == "grade_only"

    async def ask(swapped: bool) -> dict[str, str]:
        first, second = reversed(answers) if swapped else answers
        variables = {
            "question": sample.input,
            "contexts": list(sample.references or ()),
            "answer_a": first,
            "answer_b": second,
        }

        async def make(log: list[dict[str, Any]]) -> dict[str, str]:
            if words:
                return await run.judge.ask_reply("pairwise_preference", variables, _preference_words, log)
            return await run.judge.ask_json("pairwise_preference", variables, SCHEMA, _preference, log)

        return await run.step(("pairwise_preference", swapped), make)

    shown_first, shown_second = await asyncio.gather(ask(False), ask(True))
    as_given = shown_first["preference"]
    swapped_back = SWAP[shown_second["preference"]]
    consistent = as_given == swapped_back
    verdict = as_given if consistent else "tie"
    details = {
        "preference": verdict,
        "position_consistent": consistent,
        "orders": [
            {"shown_first": "A", **shown_first},
            {"shown_first": "B", **shown_second, "preference_of_answers": swapped_back},
        ],
    }
    return Scored(VALUES[verdict], details)
