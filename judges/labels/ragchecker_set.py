"""RAGChecker meta-evaluation: 280 answer pairs, each preference-labelled by two annotators on three metrics."""

from __future__ import annotations

from typing import Any

from judges.errors import InputError
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.labels.shared import read_shared_json, shared_file
from judges.types import Sample

# judgelab metric -> the field of human_labeled_data.json (and of baseline_ragchecker.json, whose
# values are RAGChecker's claim-level precision, recall and F1 for correctness, completeness, overall).
METRICS = {"correctness": "correctness_label", "completeness": "completeness_label", "overall": "overall_label"}
SCALE = (-2.0, 2.0)  # -2: model1's answer much better .. 2: model2's answer much better
BASELINE_FILE = ("ragchecker", "baseline_ragchecker.json")


def parse_ragchecker(rows: Any, *, path: str) -> list[LabelledItem]:
    """Items from the 560-row list; rows 2k and 2k+1 label the same pair (annotators a1 and a2, as the source)."""
    if not isinstance(rows, list) or len(rows) % 2:
        raise InputError("expected a JSON list of an even number of rows (two annotators per pair)", path=path)
    items = []
    for index, row in enumerate(rows):
        partner = rows[index ^ 1]
        if row.get("instance_id") != partner.get("instance_id"):
            raise InputError(
                f"rows {index} and {index ^ 1} should label the same instance_id", path=path, field="instance_id"
            )
        sample = Sample(
            input=row["query"], references=(), expected_output=row["gt_answer"], actual_output=row["model1"]["response"]
        )
        for metric, name in METRICS.items():
            label = row.get(name)
            if not isinstance(label, int) or not SCALE[0] <= label <= SCALE[1]:
                raise InputError(
                    f"row {index}: {name} must be an integer in -2..2, got {label!r}", path=path, field=name
                )
            items.append(
                LabelledItem(
                    id=str(row["instance_id"]),
                    metric=metric,
                    label=float(label),
                    label_type=LabelType.PREFERENCE,
                    scale=SCALE,
                    annotator=f"a{index % 2 + 1}",
                    sample=sample,
                    answer_b=row["model2"]["response"],
                    extra={
                        "dataset": row.get("dataset"),
                        "query_id": row.get("query_id"),
                        "system": row["model1"]["model_name"],
                        "system_b": row["model2"]["model_name"],
                    },
                )
            )
    return items


def load_ragchecker() -> LabelledSet:
    """560 labels per metric (280 pairs x 2 annotators) for correctness, completeness and overall."""
    path = str(shared_file("ragchecker", "human_labeled_data.json"))
    items = parse_ragchecker(read_shared_json("ragchecker", "human_labeled_data.json"), path=path)
    return LabelledSet("ragchecker", tuple(items), source="amazon-science/RAGChecker meta-evaluation, Apache-2.0")
