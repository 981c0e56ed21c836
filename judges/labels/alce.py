"""ALCE human evaluation (princeton-nlp/ALCE): utility of long-form answers, 1..5, as ordinal usefulness."""

from __future__ import annotations

from typing import Any

from judges.errors import InputError
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.labels.shared import read_shared_json, shared_file
from judges.types import Sample

SUMMARY_KEY = "overall_results"  # each system's block also holds its automatic scores under this key


def parse_alce(data: Any, *, path: str, datasets: tuple[str, ...] = ("asqa", "eli5")) -> list[LabelledItem]:
    """Items from {dataset: {system file: {question id: record}}}; ids are `<system file>/<question id>`."""
    if not isinstance(data, dict):
        raise InputError("expected {dataset: {system: {id: record}}}", path=path)
    items = []
    for dataset in datasets:
        if dataset not in data:
            raise InputError(f"no {dataset!r} block", path=path, field=dataset)
        for system, records in data[dataset].items():
            for qid, record in records.items():
                if qid == SUMMARY_KEY:
                    continue
                score = record.get("utility_score")
                if not isinstance(score, int) or not 1 <= score <= 5:
                    raise InputError(
                        f"{system}/{qid}: utility_score must be an integer 1..5, got {score!r}",
                        path=path,
                        field="utility_score",
                    )
                sample = Sample(
                    input=record["question"], references=(), expected_output="", actual_output=record["output"]
                )
                items.append(
                    LabelledItem(
                        id=f"{system}/{qid}",
                        metric="usefulness",
                        label=float(score),
                        label_type=LabelType.ORDINAL,
                        scale=(1.0, 5.0),
                        annotator="alce",
                        sample=sample,
                        extra={"dataset": dataset, "system": system, "question_id": qid},
                        system=system,
                    )
                )
    return items


def load_alce(datasets: tuple[str, ...] = ("asqa", "eli5")) -> LabelledSet:
    """800 answers (ASQA 400, ELI5 400: 4 systems x 100 questions), utility 1..5; no documents."""
    path = str(shared_file("alce", "human_eval_utility.json"))
    items = parse_alce(read_shared_json("alce", "human_eval_utility.json"), path=path, datasets=datasets)
    name = "alce" if len(datasets) == 2 else "alce-" + "-".join(datasets)
    return LabelledSet(name, tuple(items), source="princeton-nlp/ALCE human_eval (utility), MIT")
