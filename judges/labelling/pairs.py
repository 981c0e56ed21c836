"""Labelling pairs blind: one grader says, per metric, which of two versions of an answer deserves the higher grade
(or that they deserve the same); each answer appended to the answers file the moment it is given."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.probes.audit import ASKED, CHOICES, AuditPair

QUESTION = {
    "answer_relevancy": "Which answer is more relevant to the question (says less that is beside it)?",
    "completeness": "Which answer gives more of what the references hold to answer the question?",
    "faithfulness": "Which answer is more faithful: each statement supported by the reference it cites?",
}


def is_audit(path: str | Path) -> bool:
    """True when the file's first record is an audit pair (written by `judgelab probe --audit N`)."""
    from judges.files.jsonl import read_jsonl

    for _, record in read_jsonl(Path(path)):
        return "pair" in record and "a" in record and "b" in record
    return False


def read_answers(path: Path) -> list[dict[str, Any]]:
    from judges.files.jsonl import read_jsonl

    return [record for _, record in read_jsonl(path)] if path.is_file() else []


@dataclass
class PairSession:
    """The pairs, the grader, and the answers file (read afresh each time, so a restarted server resumes)."""

    pairs: list[AuditPair]
    annotator: str
    out: Path

    def __post_init__(self) -> None:
        if not self.annotator.strip():
            raise InputError("the annotator's name must not be empty")
        if not self.pairs:
            raise InputError("the audit holds no pair")

    def size(self) -> int:
        return len(self.pairs)

    def answers(self) -> dict[str, dict[str, Any]]:
        """This grader's last answer per pair."""
        return {str(r["pair"]): r for r in read_answers(self.out) if r.get("annotator") == self.annotator}

    def resume_position(self) -> int | None:
        done = self.answers()
        return next((n for n, pair in enumerate(self.pairs) if pair.id not in done), None)

    def next_position(self, after: int) -> int | None:
        done = self.answers()
        order = list(range(after + 1, len(self.pairs))) + list(range(0, after + 1))
        return next((n for n in order if self.pairs[n].id not in done), None)

    def submit(self, position: int, form: Mapping[str, str]) -> None:
        """Record the grader's choice per metric ("a", "same" or "b"); every metric must be answered."""
        given = {metric: form.get(metric, "") for metric in ASKED}
        missing = [metric for metric, choice in given.items() if choice not in CHOICES]
        if missing:
            raise ValueError(f"choose A, same or B for {', '.join(missing)}")
        record: dict[str, Any] = {
            "pair": self.pairs[position].id,
            "annotator": self.annotator,
            "answers": given,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if form.get("note", "").strip():
            record["note"] = form["note"].strip()
        from judges.files.jsonl import append_jsonl

        self.out.parent.mkdir(parents=True, exist_ok=True)
        with self.out.open("a", encoding="utf-8") as handle:
            append_jsonl(handle, record)
            os.fsync(handle.fileno())

    def page(self, position: int) -> str:
        from judges.labelling.server import environment

        pair = self.pairs[position]
        previous = self.answers().get(pair.id)
        same_references = pair.a.references == pair.b.references
        same_reference_answer = pair.a.expected_output == pair.b.expected_output
        return (
            environment()
            .get_template("pair.html.jinja")
            .render(
                pair=pair,
                position=position,
                total=len(self.pairs),
                annotator=self.annotator,
                done=len(self.answers()),
                questions=QUESTION,
                previous=previous,
                same_references=same_references,
                same_reference_answer=same_reference_answer,
            )
        )

    def done_page(self) -> str:
        from judges.labelling.server import environment

        return (
            environment()
            .get_template("pairs_done.html.jinja")
            .render(total=len(self.pairs), annotator=self.annotator, done=len(self.answers()), out=str(self.out))
        )
