"""Reading Label Studio and Argilla exports back into judgelab's labels file."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, InputError
from judges.files.checked import read_json_file
from judges.files.jsonl import read_jsonl
from judges.labelling.export import LABEL_QUESTION, NOTE_QUESTION, NULL_CHOICE
from judges.labelling.queue import QueueItem
from judges.labelling.scales import LabelScale, scale_for
from judges.labelling.store import append_event, event_record
from judges.types import Sample

REFERENCE = re.compile(r"(?:^|\n\n)\[(\d+)\] ")


@dataclass(frozen=True)
class Answer:
    """One annotator's answer to one item, as the tool exported it."""

    item_id: str
    metric: str | None
    fields: Mapping[str, Any]
    annotator: str
    choice: str | None  # a level as text, "null", or None for a skipped or cancelled item
    note: str | None


def split_references(text: str) -> tuple[str, ...]:
    """The numbered references of an exported field ("[1] ...\\n\\n[2] ...") as a list again."""
    starts = [m for m in REFERENCE.finditer(text)]
    if not starts:
        return (text,) if text else ()
    return tuple(text[m.end() : nxt.start() if nxt else None] for m, nxt in zip(starts, [*starts[1:], None]))


def _load(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError("file not found", path=str(path))
    if path.suffix.lower() == ".jsonl":
        return [row for _, row in read_jsonl(path)]

    data = read_json_file(path)
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise InputError("expected a JSON list of exported tasks or records", path=str(path))
    return data


def _who(completed_by: Any) -> str:
    if isinstance(completed_by, dict):
        return str(completed_by.get("email") or completed_by.get("username") or completed_by.get("id"))
    return f"label-studio-user-{completed_by}"


def label_studio_answers(rows: list[dict[str, Any]]) -> Iterator[Answer]:
    """Label Studio's JSON export: tasks with `data` and `annotations` (each a `result` list, `completed_by`)."""
    for task in rows:
        data = task.get("data") or {}
        item_id = str(data.get("item_id", task.get("id")))
        for annotation in task.get("annotations") or []:
            choice = note = None
            for result in annotation.get("result") or []:
                value = result.get("value") or {}
                if result.get("from_name") == LABEL_QUESTION and value.get("choices"):
                    choice = str(value["choices"][0])
                elif result.get("from_name") == NOTE_QUESTION and value.get("text"):
                    note = str(value["text"][0])
            if annotation.get("was_cancelled"):
                choice = None
            yield Answer(item_id, data.get("metric"), data, _who(annotation.get("completed_by")), choice, note)


def argilla_answers(rows: list[dict[str, Any]]) -> Iterator[Answer]:
    """Argilla's record export (`Record.to_dict`): id, fields, metadata, responses {question: [{value, user_id}]}."""
    for record in rows:
        metadata = record.get("metadata") or {}
        item_id = str(metadata.get("item_id", record.get("id")))
        responses = record.get("responses") or {}
        notes = {str(r.get("user_id")): r.get("value") for r in responses.get(NOTE_QUESTION) or []}
        for response in responses.get(LABEL_QUESTION) or []:
            user = str(response.get("user_id"))
            value = response.get("value")
            yield Answer(
                item_id,
                metadata.get("metric"),
                record.get("fields") or {},
                user,
                None if value is None else str(value),
                notes.get(user) or None,
            )


def _item(answer: Answer, metric: str, queue: Mapping[str, QueueItem]) -> QueueItem:
    if answer.item_id in queue:
        return queue[answer.item_id]
    fields = answer.fields
    sample = Sample(
        input=fields.get("question") or None,
        references=split_references(str(fields.get("references") or "")),
        expected_output=fields.get("reference_answer") or None,
        actual_output=str(fields.get("answer") or ""),
        id=answer.item_id,
    )
    return QueueItem(-1, answer.item_id, metric, sample)


def _label(choice: str, scale: LabelScale, where: str) -> float:
    try:
        value = float(choice)
    except ValueError:
        raise InputError(f"{where}: answer {choice!r} is not on the scale {scale.describe()}") from None
    if value not in scale.levels:
        raise InputError(f"{where}: answer {choice!r} is not on the scale {scale.describe()}")
    return int(value)


def import_labels(
    path: str | Path,
    fmt: str,
    out: str | Path,
    *,
    metric: str | None = None,
    scale: str | None = None,
    queue: list[QueueItem] | None = None,
) -> tuple[Path, dict[str, int]]:
    """Write the labels file (replacing `out`) from a tool's export; counts of labels, nulls and skips."""

    path, out = Path(path), Path(out)
    rows = _load(path)
    answers = list(label_studio_answers(rows) if fmt == "label-studio" else argilla_answers(rows))
    if not answers:
        raise InputError("the export holds no answers", path=str(path))
    by_id = {item.id: item for item in queue or []}
    chosen = metric or answers[0].metric or (next(iter(by_id.values())).metric if by_id else None)
    if chosen is None:
        raise ConfigError("the export does not name the metric: give --metric")
    label_scale = scale_for(chosen, scale)
    counts = {"label": 0, "null": 0, "skip": 0}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("", encoding="utf-8")
    for answer in answers:
        item = _item(answer, chosen, by_id)
        where = f"{path}: item {answer.item_id!r}"
        if answer.choice is None:
            event, label = "skip", None
        elif answer.choice == NULL_CHOICE:
            if not label_scale.allows_null:
                raise InputError(f"{where}: {chosen} takes no null label")
            event, label = "null", None
        else:
            event, label = "label", _label(answer.choice, label_scale, where)
        append_event(out, event_record(item, label_scale, answer.annotator, event, label, answer.note, source=fmt))
        counts[event] += 1
    return out, counts
