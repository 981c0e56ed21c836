"""`judgelab label export|import`: Label Studio and Argilla round trips keep ids and labels."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

from judges.cli.main import main
from judges.labelling.importing import split_references
from judges.labelling.queue import QueueItem, read_queue, write_queue
from judges.labels.label_sets import open_labels
from judges.types import Sample

LABELS = {"q0": ("1", "ok"), "q1": ("0", None), "q2": ("null", "abstains"), "q3": ("1", None)}


def queue(tmp_path, metric="faithfulness"):
    items = [
        QueueItem(
            n,
            f"q{n}",
            metric,
            Sample(
                input=f"Question {n}?",
                references=(f"First reference of {n}.", "Second one,\n\nwith a blank line [2] inside."),
                expected_output=f"Reference answer {n}.",
                actual_output=f"Answer {n} [1].",
            ),
            {"stratum": "score [0.40, 0.60), disagreement strong", "inclusion_probability": 0.5, "weight": 2.0},
        )
        for n in range(5)
    ]
    return write_queue(tmp_path / "queue.jsonl", items)


def as_label_studio_export(tasks, answers, user=7):
    """The shape of Label Studio's JSON export: tasks with ids, `annotations` with `result` and `completed_by`."""
    exported = []
    for number, task in enumerate(tasks, start=1):
        item_id = task["data"]["item_id"]
        annotations = []
        if item_id in answers:
            choice, note = answers[item_id]
            result = [
                {"from_name": "label", "to_name": "answer", "type": "choices", "value": {"choices": [choice]}},
            ]
            if note:
                result.append({"from_name": "note", "to_name": "answer", "type": "textarea", "value": {"text": [note]}})
            annotations.append({"id": 100 + number, "completed_by": user, "result": result, "was_cancelled": False})
        else:
            annotations.append({"id": 100 + number, "completed_by": user, "result": [], "was_cancelled": True})
        exported.append({"id": number, "data": task["data"], "annotations": annotations, "predictions": []})
    return exported


def test_label_studio_round_trip_keeps_ids_labels_notes_and_weights(tmp_path, capsys):
    path = queue(tmp_path)
    out = tmp_path / "ls" / "tasks.json"
    assert main(["label", "export", str(path), "--format", "label-studio", "--out", str(out)]) == 0
    tasks = json.loads(out.read_text())
    assert [t["data"]["item_id"] for t in tasks] == ["q0", "q1", "q2", "q3", "q4"]
    assert set(tasks[0]["data"]) == {"item_id", "metric", "question", "references", "answer", "reference_answer"}
    assert "0.5" not in out.read_text() and "stratum" not in out.read_text()  # blind: no selection record
    config = ET.fromstring((tmp_path / "ls" / "tasks.label_config.xml").read_text())
    choices = config.find("Choices")
    assert choices is not None and choices.get("name") == "label" and choices.get("toName") == "answer"
    assert [c.get("value") for c in choices.findall("Choice")] == ["0", "1", "null"]
    assert {t.get("value") for t in config.findall("Text")} >= {"$question", "$references", "$answer"}
    rubric = [t.get("value") for t in config.findall("Text") if t.get("name") == "rubric"][0]
    assert rubric.startswith("Metric: FAITHFULNESS.")

    export = tmp_path / "ls" / "export.json"
    export.write_text(json.dumps(as_label_studio_export(tasks, LABELS)))
    labels = tmp_path / "labels.jsonl"
    assert (
        main(["label", "import", str(export), "--format", "label-studio", "--out", str(labels), "--queue", str(path)])
        == 0
    )
    assert "3 labels, 1 null, 1 skipped" in capsys.readouterr().out
    read = open_labels(str(labels))
    assert [(i.id, i.label, i.annotator) for i in read.items] == [
        ("q0", 1.0, "label-studio-user-7"),
        ("q1", 0.0, "label-studio-user-7"),
        ("q3", 1.0, "label-studio-user-7"),
    ]
    assert read.items[0].extra["note"] == "ok" and read.items[0].extra["weight"] == 2.0
    assert read.items[0].sample == replace(read_queue(path)[0].sample, id="")  # parse_item keeps no sample id


def test_argilla_round_trip_with_two_annotators_and_without_the_queue(tmp_path):
    path = queue(tmp_path, metric="answer_relevancy")
    out = tmp_path / "records.json"
    assert main(["label", "export", str(path), "--format", "argilla", "--out", str(out)]) == 0
    records = json.loads(out.read_text())
    settings = json.loads((tmp_path / "records.settings.json").read_text())
    assert [r["id"] for r in records] == ["q0", "q1", "q2", "q3", "q4"]
    assert set(records[0]["fields"]) == {f["name"] for f in settings["fields"]}
    question = settings["questions"][0]
    assert question["name"] == "label" and question["settings"]["type"] == "label_selection"
    assert [o["value"] for o in question["settings"]["options"]] == ["1", "2", "3", "4", "5", "null"]
    assert settings["guidelines"].startswith("Metric: ANSWER RELEVANCY.")
    # the shape of Argilla's export (Record.to_dict): responses per question, one per user
    for record, (first, second) in zip(records, [("5", "4"), ("3", "3"), ("null", "2"), ("1", "1"), ("2", "5")]):
        record["_server_id"] = f"uuid-{record['id']}"
        record["responses"] = {
            "label": [{"value": first, "user_id": "user-a"}, {"value": second, "user_id": "user-b"}],
            "note": [{"value": "unsure", "user_id": "user-b"}] if record["id"] == "q1" else [],
        }
    export = tmp_path / "argilla-export.json"
    export.write_text(json.dumps(records))
    labels = tmp_path / "labels.jsonl"
    assert main(["label", "import", str(export), "--format", "argilla", "--out", str(labels)]) == 0
    read = open_labels(str(labels))
    assert read.annotators() == ["user-a", "user-b"] and read.metrics() == ["answer_relevancy"]
    got = {(i.id, i.annotator): i.label for i in read.items}
    assert got == {
        ("q0", "user-a"): 5,
        ("q0", "user-b"): 4,
        ("q1", "user-a"): 3,
        ("q1", "user-b"): 3,
        ("q2", "user-b"): 2,
        ("q3", "user-a"): 1,
        ("q3", "user-b"): 1,
        ("q4", "user-a"): 2,
        ("q4", "user-b"): 5,
    }
    q1 = [i for i in read.items if i.id == "q1" and i.annotator == "user-b"][0]
    assert q1.extra["note"] == "unsure" and q1.label_type.value == "ordinal" and q1.scale == (1.0, 5.0)
    # without the queue, the sample comes back from the exported fields, references split again
    assert read.items[0].sample.references == ("First reference of 0.", "Second one,\n\nwith a blank line [2] inside.")
    assert read.items[0].sample.input == "Question 0?" and read.items[0].sample.expected_output == "Reference answer 0."


def test_split_references_and_an_answer_off_the_scale(tmp_path, capsys):
    assert split_references("[1] a\n\n[2] b [3] c") == ("a", "b [3] c")
    assert split_references("") == () and split_references("plain") == ("plain",)
    export = tmp_path / "e.json"
    export.write_text(
        json.dumps(
            [
                {
                    "id": "x",
                    "fields": {"answer": "a"},
                    "metadata": {"metric": "faithfulness"},
                    "responses": {"label": [{"value": "3", "user_id": "u"}]},
                }
            ]
        )
    )
    assert main(["label", "import", str(export), "--format", "argilla", "--out", str(tmp_path / "l.jsonl")]) == 2
    assert "item 'x': answer '3' is not on the scale binary 0/1 or null" in capsys.readouterr().err
