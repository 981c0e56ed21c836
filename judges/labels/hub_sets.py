"""Labelled sets a user downloads from the Hugging Face hub (WikiEval, RAGTruth), read through `datasets`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.labels.hub_quiet import hub_offline, quiet_hub, reach_hub
from judges.labels.schema import LabelledItem, LabelledSet, LabelType
from judges.labels.shared import find_folder
from judges.types import Sample

WIKIEVAL_REPO = "explodinggradients/WikiEval"
RAGTRUTH_REPO = "wandb/RAGTruth-processed"
# WikiEval's pairs, by construction (checked by the Ragas authors' annotators): the grounded `answer`
# is better than the alternative on each metric. Stored with the better answer as answer a (label -1).
WIKIEVAL_PAIRS = {"faithfulness": "ungrounded_answer", "answer_relevancy": "poor_answer"}


def load_hub_rows(repo_or_folder: str, split: str, name: str = "") -> list[dict[str, Any]]:
    """One split as plain dicts through `datasets.load_dataset` (a hub id, or a local folder in the same layout).
    An unreachable hub is one line naming `judgelab data fetch NAME`, before any retry; retry warnings stay quiet."""
    import datasets  # heavy: imported only when a hub set is asked for

    if not Path(repo_or_folder).exists() and not hub_offline():
        fix = (
            f"run `judgelab data fetch {name}` where it is reachable, or give {name}:DIR"
            if name
            else "give a local copy"
        )
        reach_hub(repo_or_folder, fix)
    try:
        with quiet_hub():
            dataset = datasets.load_dataset(repo_or_folder, split=split)
    except Exception as err:  # datasets raises many types for "offline" / "not found" / "no such split"
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        fetch = f"; `judgelab data fetch {name}` gets a copy" if name and not Path(repo_or_folder).exists() else ""
        raise InputError(
            f"cannot load split {split!r} of {repo_or_folder!r} (no network, no such dataset or split): {first_line}"
            f"{fetch}"
        ) from None
    return [dict(row) for row in dataset]


def _need(row: Mapping[str, Any], name: str, number: int, source: str) -> Any:
    if row.get(name) is None:
        raise InputError(f"row {number} has no {name!r}", path=source, field=name)
    return row[name]


def wikieval_items(rows: Iterable[Mapping[str, Any]], *, source: str) -> list[LabelledItem]:
    """Two preference items per WikiEval row (faithfulness, answer relevancy); ids are row numbers from 0."""
    items = []
    for number, row in enumerate(rows):
        contexts = _need(row, "context_v1", number, source)
        contexts = (contexts,) if isinstance(contexts, str) else tuple(contexts)
        for metric, worse in WIKIEVAL_PAIRS.items():
            sample = Sample(
                input=_need(row, "question", number, source),
                references=contexts,
                expected_output="",
                actual_output=_need(row, "answer", number, source),
            )
            items.append(
                LabelledItem(
                    id=str(number),
                    metric=metric,
                    label=-1.0,
                    label_type=LabelType.PREFERENCE,
                    scale=(-1.0, 1.0),
                    annotator="wikieval",
                    sample=sample,
                    answer_b=_need(row, worse, number, source),
                    extra={"source": row.get("source"), "answer_b_kind": worse},
                )
            )
    return items


def _spans(value: Any) -> list[Any] | None:
    """RAGTruth's hallucination spans: a JSON list in a string (or already a list); None when absent."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
        value = "".join(value)  # some exports split the JSON string into characters
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, list) else None


def ragtruth_items(rows: Iterable[Mapping[str, Any]], *, source: str) -> list[LabelledItem]:
    """One binary faithfulness item per RAGTruth response: 1 when annotators marked no hallucinated span."""
    items = []
    for number, row in enumerate(rows):
        spans = _spans(row.get("hallucination_labels"))
        if spans is None:
            processed = row.get("hallucination_labels_processed")
            if not isinstance(processed, Mapping):
                raise InputError(
                    f"row {number} has no readable hallucination labels", path=source, field="hallucination_labels"
                )
            hallucinated = sum(int(v or 0) for v in processed.values()) > 0
        else:
            hallucinated = len(spans) > 0
        sample = Sample(
            input=str(row.get("query") or ""),
            references=(_need(row, "context", number, source),),
            expected_output="",
            actual_output=_need(row, "output", number, source),
        )
        items.append(
            LabelledItem(
                id=str(row.get("id", number)),
                metric="faithfulness",
                label=0.0 if hallucinated else 1.0,
                label_type=LabelType.BINARY,
                scale=(0.0, 1.0),
                annotator="ragtruth",
                sample=sample,
                extra={"task_type": row.get("task_type"), "system": row.get("model"), "quality": row.get("quality")},
            )
        )
    return items


def _fetched_or(name: str, repo: str) -> str:
    """The copy `judgelab data fetch NAME` left in a data folder, else the hub id."""
    folder = find_folder(name)
    return str(folder) if folder is not None else repo


def load_wikieval(repo_or_folder: str | None = None, split: str = "train") -> LabelledSet:
    """WikiEval (50 questions) as pairwise preferences: a fetched copy, else the hub (network), or a given folder."""
    repo_or_folder = repo_or_folder or _fetched_or("wikieval", WIKIEVAL_REPO)
    rows = load_hub_rows(repo_or_folder, split, "wikieval")
    return LabelledSet("wikieval", tuple(wikieval_items(rows, source=repo_or_folder)), source=repo_or_folder)


def load_ragtruth(repo_or_folder: str | None = None, split: str = "test") -> LabelledSet:
    """RAGTruth responses with response-level hallucination labels: a fetched copy, else the hub, or a given folder."""
    repo_or_folder = repo_or_folder or _fetched_or("ragtruth", RAGTRUTH_REPO)
    rows = load_hub_rows(repo_or_folder, split, "ragtruth")
    return LabelledSet("ragtruth", tuple(ragtruth_items(rows, source=repo_or_folder)), source=repo_or_folder)
