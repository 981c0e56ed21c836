"""Per-metric reply schemas, the JSON schema for constrained decoding, and tolerant reply parsing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from judges.types import FailureKind, Verdict

# metric -> (grade field, allowed grades, boolean fields asked before the grade)
GRADE_SPECS: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
    "answer_relevancy": ("answer_relevancy", (1, 2, 3, 4, 5), ("answer_affirms_no_document_answers",)),
    "completeness": ("completeness", (1, 2, 3, 4, 5), ()),
    "faithfulness": ("faithfulness", (0, 1), ()),
    "usefulness": ("usefulness", (0, 1), ("answer_affirms_no_document_answers", "answer_contains_related_information")),
}
JUSTIFICATION_MAX_CHARS = 160  # keeps constrained replies short: a small local judge writes ~85 tokens/s
# The shapes a template may ask for (declared by a `{# reply_format: NAME #}` comment; see prompts.py). `compact`
# grades answer 2 (the actual output) alone, justification first, under short keys ("no_doc", "related_info", "why",
# "grade"): a small local judge spends most of its decoding steps writing key names, and half of them on answer 1
# (benchmarks/bench_offline_judge.py).
REPLY_FORMATS = ("justification_first", "grade_first", "grade_only", "compact")
_COMPACT_FLAGS = {"answer_affirms_no_document_answers": "no_doc", "answer_contains_related_information": "related_info"}
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_REFUSAL = re.compile(
    r"\b(I can(?:no|')t|I am unable|I'm unable|I won't|I will not) (help|assist|comply|provide|do that)", re.I
)


class ReplyError(ValueError):
    """A reply that does not hold a usable grade; `kind` says whether it was refused or garbled."""

    def __init__(self, message: str, kind: FailureKind = FailureKind.UNPARSEABLE) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class EntryKeys:
    """The key names of one answer's grading in a reply format."""

    flags: tuple[str, ...]
    justification: str
    grade: str


def entry_keys(metric: str, reply_format: str = "justification_first") -> EntryKeys:
    """The keys `reply_format` names one answer's booleans, justification and grade with, for `metric`."""
    if reply_format not in REPLY_FORMATS:
        raise ValueError(f"unknown reply format {reply_format!r}; known: {', '.join(REPLY_FORMATS)}")
    grade_field, _, flags = GRADE_SPECS[metric]
    if reply_format == "compact":
        return EntryKeys(tuple(_COMPACT_FLAGS[flag] for flag in flags), "why", "grade")
    return EntryKeys(flags, f"{metric}_justification", grade_field)


def entry_schema(metric: str, reply_format: str = "justification_first") -> dict[str, Any]:
    """JSON schema of one answer's grading, in the order constrained decoding writes it: by default booleans, a
    short justification, then the grade; `grade_first` puts the grade before the justification; `grade_only` asks
    for the grade alone; `compact` is the default order under short keys."""
    keys = entry_keys(metric, reply_format)
    grade = {"enum": [*GRADE_SPECS[metric][1], None]}
    justification = {"type": "string", "maxLength": JUSTIFICATION_MAX_CHARS}
    properties: dict[str, Any] = {}
    if reply_format != "grade_only":
        properties.update({flag: {"type": "boolean"} for flag in keys.flags})
    if reply_format in ("justification_first", "compact"):
        properties[keys.justification] = justification
    properties[keys.grade] = grade
    if reply_format == "grade_first":
        properties[keys.justification] = justification
    return {"type": "object", "properties": properties, "required": list(properties)}


def reply_schema(metric: str, reply_format: str = "justification_first") -> dict[str, Any]:
    """JSON schema of a two-answer reply (answer 1 = expected output, answer 2 = actual output), or of answer 2's
    grading alone for `compact`."""
    entry = entry_schema(metric, reply_format)
    if reply_format == "compact":
        return entry
    return {
        "type": "object",
        "properties": {"answer_1": entry, "answer_2": entry},
        "required": ["answer_1", "answer_2"],
    }


def extract_json(text: str) -> Any:
    """The JSON object in a reply: bare, fenced, or surrounded by prose; light repairs via json_repair."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    candidates = [fenced.group(1).strip()] if fenced else []
    start, end = stripped.find("{"), stripped.rfind("}")
    if start != -1 and end > start:
        candidates.append(stripped[start : end + 1])
    candidates.append(stripped)
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    if start != -1:
        import json_repair  # repairs truncated or slightly malformed JSON

        repaired = json_repair.loads(stripped[start:])
        if isinstance(repaired, dict) and repaired:
            return repaired
    if _REFUSAL.search(stripped):
        raise ReplyError(f"the judge refused: {stripped[:120]!r}", FailureKind.REFUSED)
    raise ReplyError(f"no JSON object in the reply: {stripped[:120]!r}")


def _grade(metric: str, entry: Any, reply_format: str) -> Verdict:
    keys = entry_keys(metric, reply_format)
    grade_field, grades = keys.grade, GRADE_SPECS[metric][1]
    if not isinstance(entry, dict) or grade_field not in entry:
        raise ReplyError(f"reply has no {grade_field!r} field")
    raw = entry[grade_field]
    justification = entry.get(keys.justification)
    justification = str(justification) if justification is not None else None
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("null", "none")):
        return Verdict.null("the judge returned null", justification)
    if isinstance(raw, bool):
        value = int(raw)
    elif isinstance(raw, (int, float)) or (isinstance(raw, str) and re.fullmatch(r"\s*-?\d+(\.0+)?\s*", raw)):
        number = float(raw)
        if not number.is_integer():
            raise ReplyError(f"{grade_field} must be a whole number, got {raw!r}")
        value = int(number)
    else:
        raise ReplyError(f"{grade_field} is not a grade: {raw!r}")
    if value not in grades:
        raise ReplyError(f"{grade_field} out of range: {value} not in {list(grades)}")
    return Verdict.graded(float(value), justification)


@dataclass(frozen=True)
class ParsedReply:
    """The actual output's verdict, and the expected output's when the prompt graded both."""

    actual: Verdict
    expected: Verdict | None


def parse_reply(metric: str, text: str, reply_format: str = "justification_first") -> ParsedReply:
    """Parse a two-answer reply ({answer_1, answer_2}) or a single-answer one, its keys named as `reply_format` names
    them; raises ReplyError."""
    obj = extract_json(text)
    if not isinstance(obj, dict):
        raise ReplyError("the reply's JSON is not an object")
    if "answer_2" in obj:
        expected = obj.get("answer_1")
        expected_verdict = None
        if isinstance(expected, dict):
            try:
                expected_verdict = _grade(metric, expected, reply_format)
            except ReplyError:
                expected_verdict = None
        return ParsedReply(_grade(metric, obj["answer_2"], reply_format), expected_verdict)
    return ParsedReply(_grade(metric, obj, reply_format), None)
