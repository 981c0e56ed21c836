"""Writing a queue in the import formats of Label Studio and Argilla, with the same blind fields and the rubric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from judges.labelling.queue import QueueItem
from judges.labelling.scales import LabelScale

FORMATS = ("label-studio", "argilla")
LABEL_QUESTION, NOTE_QUESTION = "label", "note"
NULL_CHOICE = "null"


def choices(scale: LabelScale) -> list[str]:
    """The answers offered, as text: each level, then `null` when the metric allows it."""
    return [str(level) for level in scale.levels] + ([NULL_CHOICE] if scale.allows_null else [])


def blind_fields(item: QueueItem) -> dict[str, str]:
    """What an annotator sees: the question, the numbered references, the answer, the reference answer."""
    references = "\n\n".join(f"[{n}] {text}" for n, text in enumerate(item.sample.references or (), start=1))
    return {
        "question": item.sample.input or "",
        "references": references,
        "answer": item.sample.actual_output or "",
        "reference_answer": item.sample.expected_output or "",
    }


def label_studio_config(metric: str, scale: LabelScale, rubric: str) -> str:
    """The labeling config (XML) for the tasks: the blind fields, the rubric, a single choice and a note."""
    hotkeys = {NULL_CHOICE: "n"}
    options = "\n".join(
        f"    <Choice value={quoteattr(c)} hotkey={quoteattr(hotkeys.get(c, c))}/>" for c in choices(scale)
    )
    return f"""<View>
  <Header value="Question"/>
  <Text name="question" value="$question"/>
  <Header value="References"/>
  <Text name="references" value="$references"/>
  <Header value="Answer"/>
  <Text name="answer" value="$answer"/>
  <Header value="Reference answer"/>
  <Text name="reference_answer" value="$reference_answer"/>
  <Header value={quoteattr("Rubric: " + metric)}/>
  <Text name="rubric" value={quoteattr(rubric)}/>
  <Choices name="{LABEL_QUESTION}" toName="answer" choice="single" showInline="true" required="true">
{options}
  </Choices>
  <TextArea name="{NOTE_QUESTION}" toName="answer" maxSubmissions="1" editable="true" placeholder="optional note"/>
</View>
"""


def label_studio_tasks(items: list[QueueItem]) -> list[dict[str, Any]]:
    """Label Studio's task import: a JSON list of tasks, each with `data` (our id kept as `item_id`)."""
    return [{"data": {"item_id": item.id, "metric": item.metric, **blind_fields(item)}} for item in items]


def argilla_settings(metric: str, scale: LabelScale, rubric: str) -> dict[str, Any]:
    """An Argilla dataset's settings: guidelines (the rubric), text fields, the label question, metadata."""
    return {
        "guidelines": rubric,
        "fields": [
            {"name": name, "title": name.replace("_", " "), "required": name == "answer", "settings": {"type": "text"}}
            for name in ("question", "references", "answer", "reference_answer")
        ],
        "questions": [
            {
                "name": LABEL_QUESTION,
                "title": f"{metric} ({scale.describe()})",
                "required": True,
                "settings": {"type": "label_selection", "options": [{"value": c, "text": c} for c in choices(scale)]},
            },
            {"name": NOTE_QUESTION, "title": "note (optional)", "required": False, "settings": {"type": "text"}},
        ],
        "metadata": [
            {"name": "item_id", "title": "item id", "settings": {"type": "terms"}},
            {"name": "metric", "title": "metric", "settings": {"type": "terms"}},
        ],
    }


def argilla_records(items: list[QueueItem]) -> list[dict[str, Any]]:
    """Records in the shape of Argilla's `Record.to_dict` / `from_dict`: id, fields, metadata, empty responses."""
    return [
        {
            "id": item.id,
            "fields": blind_fields(item),
            "metadata": {"item_id": item.id, "metric": item.metric},
            "suggestions": {},
            "responses": {},
            "vectors": {},
        }
        for item in items
    ]


def beside(out: Path, suffix: str) -> Path:
    """The companion file written next to `out` (e.g. queue.json -> queue.label_config.xml)."""
    return out.with_name(out.name.removesuffix(out.suffix) + suffix)


def export_queue(items: list[QueueItem], fmt: str, out: str | Path, *, scale: LabelScale, rubric: str) -> list[Path]:
    """Write the queue for Label Studio (tasks JSON + labeling config XML) or Argilla (records JSON + settings JSON)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    metric = items[0].metric
    if fmt == "label-studio":
        config = beside(out, ".label_config.xml")
        out.write_text(json.dumps(label_studio_tasks(items), indent=2, ensure_ascii=False), encoding="utf-8")
        config.write_text(label_studio_config(metric, scale, rubric), encoding="utf-8")
        return [out, config]
    if fmt == "argilla":
        settings = beside(out, ".settings.json")
        out.write_text(json.dumps(argilla_records(items), indent=2, ensure_ascii=False), encoding="utf-8")
        settings.write_text(
            json.dumps(argilla_settings(metric, scale, rubric), indent=2, ensure_ascii=False), encoding="utf-8"
        )
        return [out, settings]
    raise ValueError(fmt)
