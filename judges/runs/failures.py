"""The unit tests a run did not pass, named the same way everywhere (summary.md, JUnit, pytest, the terminal)."""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from judges.records import ItemRecord, MetricRecord
from judges.types import ALL_METRICS, Outcome, Verdict, VerdictState

NOT_PASSED = (Outcome.WRONG_GRADE, Outcome.FAILURE)
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


@dataclass(frozen=True)
class Miss:
    """One test x metric outcome that was not a pass."""

    test: str
    test_type: str | None
    metric: str
    expected: str | None
    given: str
    outcome: str
    justification: str

    def describe(self, width: int = 100) -> str:
        """`faithfulness: expected ==1, got 0 (wrong grade): <one line of the justification>`."""
        why = one_line(self.justification, width)
        what = "wrong grade" if self.outcome == "wrong_grade" else "run failure"
        return f"{self.metric}: expected {self.expected}, got {self.given} ({what})" + (f": {why}" if why else "")


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


def record_misses(record: ItemRecord, metric: str | None = None) -> Iterator[Miss]:
    """A first-draw record's outcomes that were not passes (optionally for one metric)."""
    if record.draw != 0:
        return
    for name, entry in record.metrics.items():
        if entry.outcome not in NOT_PASSED or (metric is not None and name != metric):
            continue
        yield Miss(
            record.id,
            record.test_type,
            name,
            entry.condition,
            given(entry.verdict),
            entry.outcome.value,
            reason(entry),
        )


def misses(records: Iterable[ItemRecord], metric: str | None = None) -> list[Miss]:
    """The first draw's outcomes that were not passes, in the records' order (optionally for one metric)."""
    return [miss for record in records for miss in record_misses(record, metric)]


def first_misses(
    records: Iterable[ItemRecord], limit: int, metric: str | None = None, outcome: str | None = None
) -> tuple[list[Miss], int]:
    """The first `limit` misses in item order, and how many there are, holding no more than `limit` of them (the
    records may come in any order, streamed from results.jsonl)."""
    total = 0

    def keyed() -> Iterator[tuple[tuple[int, int], Miss]]:
        nonlocal total
        for record in records:
            found = (m for m in record_misses(record, metric) if outcome is None or m.outcome == outcome)
            for index, miss in enumerate(found):
                total += 1
                yield (record.order, index), miss

    shown = heapq.nsmallest(limit, keyed(), key=lambda pair: pair[0])
    return [miss for _, miss in shown], total


def by_test(found: Iterable[Miss]) -> dict[str, list[Miss]]:
    grouped: dict[str, list[Miss]] = {}
    for miss in found:
        grouped.setdefault(miss.test, []).append(miss)
    return grouped


def listing(records: Iterable[ItemRecord], target: str | None = None, limit: int = 10) -> list[str]:
    """Lines naming the tests not passed (for a bar's target: its metric, or every metric for `total` and
    `failure_rate`), at most `limit`, then "and N more: see report.html"."""

    metric = target if target in ALL_METRICS else None
    found, total = first_misses(records, limit, metric, "failure" if target == "failure_rate" else None)
    lines = [f"{m.test}: {m.describe()}" for m in found]
    if total > limit:
        lines.append(f"and {total - limit} more: see report.html")
    return lines
