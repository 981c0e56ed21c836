"""Topical-Chat USR annotations (via UniEval): groundedness of dialogue responses as continuous faithfulness."""

from __future__ import annotations

from typing import Any

from judges.errors import InputError
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.labels.shared import read_shared_json, shared_file
from judges.types import Sample

FIELDS = ("source", "context", "system_output", "system_id", "scores")


def parse_topical_chat(records: Any, *, path: str) -> list[LabelledItem]:
    """Items from the UniEval `topical_chat.json` list; ids are the list positions, from 0."""
    if not isinstance(records, list):
        raise InputError("expected a JSON list of dialogue turns", path=path)
    items = []
    for number, record in enumerate(records):
        missing = next((name for name in FIELDS if name not in record), None)
        if missing:
            raise InputError(f"entry {number} has no {missing!r}", path=path, field=missing)
        grounded = record["scores"].get("groundedness")
        if not isinstance(grounded, (int, float)) or not 0 <= grounded <= 1:
            raise InputError(
                f"entry {number}: groundedness must be a number in [0, 1]", path=path, field="scores.groundedness"
            )
        sample = Sample(
            input=record["source"].strip(),
            references=(record["context"],),
            expected_output="",
            actual_output=record["system_output"].strip(),
        )
        items.append(
            LabelledItem(
                id=str(number),
                metric="faithfulness",
                label=float(grounded),
                label_type=LabelType.CONTINUOUS,
                scale=(0.0, 1.0),
                annotator="usr-mean-of-3",
                sample=sample,
                extra={"system": record["system_id"], "scores": dict(record["scores"])},
                system=str(record["system_id"]),
            )
        )
    return items


def load_topical_chat() -> LabelledSet:
    """The 360 Topical-Chat responses (60 dialogues x 6 systems); groundedness = mean of 3 annotators in [0, 1]."""
    path = str(shared_file("topical_chat", "topical_chat.json"))
    items = parse_topical_chat(read_shared_json("topical_chat", "topical_chat.json"), path=path)
    return LabelledSet("topical-chat", tuple(items), source="maszhongming/UniEval (USR Topical-Chat), MIT")
