"""A verdict as every page names it: the grade given, why (never a reason that contradicts the grade), on one line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from judges.records import MetricRecord
from judges.types import Verdict, VerdictState

PASS_FAIL = "faithfulness"  # the metric whose prompt asks for "all pass" or the failing sentence
REASON_SHOWN = 200  # characters of a reason shown in a table cell
# The shipped faithfulness prompts ask for "all pass" or the first failing sentence, copied; a small judge sometimes
# writes a sentence saying that sentences fail beside a passing grade (or "all pass" beside a failing one).
_ALL_PASS = re.compile(r"^\W*all (sentences |statements )?pass(es)?\W*$", re.I)
_SAYS_FAIL = re.compile(r"\b(none of (the|them)|fails?|failing|not (supported|backed|true)|unsupported)\b", re.I)


def reason(entry: MetricRecord | Mapping[str, Any]) -> str:
    """Why a verdict is what it is, in one short line: the judge's parsed reason (or the failure's message, or a
    metric step's reason); "graded 1, no reason given" when the reply gave none; and never a reason that says the
    opposite of a pass/fail grade (the raw reply stays in report.html). `entry` is a typed record or its JSON form
    as results.jsonl holds it (read through the schema)."""
    if not isinstance(entry, MetricRecord):
        entry = MetricRecord.from_json("", entry)
    text = " ".join(entry.why.split())
    verdict = entry.verdict
    if verdict.state is VerdictState.GRADE and text and entry.metric == PASS_FAIL and contradicts(verdict.grade, text):
        return f"graded {given(verdict)}; the reason written contradicts the grade (its raw reply is in report.html)"
    if text:
        return text
    if verdict.state is VerdictState.GRADE:
        return f"graded {given(verdict)}, no reason given"
    return "null, no reason given" if verdict.state is VerdictState.NULL else "failed, no message"


def contradicts(grade: float | None, text: str) -> bool:
    """Whether a faithfulness grade's reason says the opposite: "all pass" beside a 0, or sentences failing beside a 1."""
    if grade == 0:
        return bool(_ALL_PASS.match(text))
    if grade == 1:
        return not _ALL_PASS.match(text) and bool(_SAYS_FAIL.search(text))
    return False


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3].rstrip() + "..."


def given(verdict: Verdict) -> str:
    """The verdict as a report names it: the grade (`3`, `0.5`), `null`, or `failure: <kind>`."""
    if verdict.state is VerdictState.GRADE and verdict.grade is not None:
        grade = verdict.grade
        return str(int(grade)) if float(grade).is_integer() else f"{grade:g}"
    if verdict.state is VerdictState.NULL:
        return "null"
    return f"failure: {verdict.failure_kind.value if verdict.failure_kind else None}"
