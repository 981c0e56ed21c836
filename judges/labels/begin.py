"""BEGIN (google/BEGIN-dataset): knowledge-grounded dialogue turns labelled for attribution, as binary faithfulness."""

from __future__ import annotations

import csv
from pathlib import Path

from judges.errors import InputError
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.labels.shared import shared_file
from judges.types import Sample

SUBSETS = ("wow", "cmu", "tc")
SPLITS = ("dev", "test")  # upstream ships begin_<split>_<subset>.tsv; the shared folder holds the dev files
COLUMNS = ("model_name", "data_source", "knowledge", "message", "response", "begin_label")
# "Generic" responses (too vague to be attributed) are not fully attributable: label 0 unless dropped.
LABELS = {"Fully attributable": 1.0, "Not fully attributable": 0.0, "Generic": 0.0}


def begin_file(subset: str, split: str = "dev") -> str:
    return f"begin_{split}_{subset}.tsv"


def read_begin_file(path: Path, subset: str, *, generic: str = "negative", split: str = "dev") -> list[LabelledItem]:
    """One BEGIN TSV; ids are `<subset>/<data row, from 0>` (`<subset>:<split>/<row>` beyond dev).
    `generic`: "negative" (label 0) or "drop"."""
    items = []
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)  # raw TSV: quotes are text
        header = next(rows, None)
        if header is None or tuple(header) != COLUMNS:
            raise InputError(f"expected the columns {', '.join(COLUMNS)}", path=str(path), line=1)
        for number, row in enumerate(rows):
            line = number + 2
            if len(row) != len(COLUMNS):
                raise InputError(
                    f"expected {len(COLUMNS)} tab-separated fields, got {len(row)}", path=str(path), line=line
                )
            record = dict(zip(COLUMNS, row, strict=True))
            if record["begin_label"] not in LABELS:
                raise InputError(
                    f"unknown label {record['begin_label']!r}", path=str(path), line=line, field="begin_label"
                )
            if generic == "drop" and record["begin_label"] == "Generic":
                continue
            sample = Sample(
                input=record["message"],
                references=(record["knowledge"],),
                expected_output="",
                actual_output=record["response"],
            )
            items.append(
                LabelledItem(
                    id=f"{subset}/{number}" if split == "dev" else f"{subset}:{split}/{number}",
                    metric="faithfulness",
                    label=LABELS[record["begin_label"]],
                    label_type=LabelType.BINARY,
                    scale=(0.0, 1.0),
                    annotator="begin",
                    sample=sample,
                    extra={
                        "begin_label": record["begin_label"],
                        "system": record["model_name"],
                        "source": f"{path.name}:{line}",
                    },
                )
            )
    return items


def load_begin(subsets: tuple[str, ...] = SUBSETS, *, generic: str = "negative", split: str = "dev") -> LabelledSet:
    """BEGIN from ../shared/datasets/begin: dev has 430 WoW, 416 CMU-DoG, 383 TopicalChat turns; `split="test"`
    reads upstream's test files when they are placed beside them."""
    if generic not in ("negative", "drop"):
        raise ValueError(f"generic must be 'negative' or 'drop', got {generic!r}")
    if split not in SPLITS:
        raise InputError(f"BEGIN has the splits {', '.join(SPLITS)}, not {split!r}")
    items = [
        item
        for subset in subsets
        for item in read_begin_file(
            shared_file("begin", begin_file(subset, split)), subset, generic=generic, split=split
        )
    ]
    name = "begin" if len(subsets) == len(SUBSETS) else "begin-" + "-".join(subsets)
    return LabelledSet(
        name if split == "dev" else f"{name}:{split}",
        tuple(items),
        source=f"google/BEGIN-dataset ({split}), CC BY 4.0 / CDLA-Sharing-1.0",
    )
