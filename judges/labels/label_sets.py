"""Named labelled sets (lazy `module:function` targets) and the resolution of `--labels SET_OR_FILE`."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, InputError
from judges.labels.io import read_labels
from judges.labels.label_log import is_label_log, read_label_log
from judges.labels.mapping import ColumnMapping, load_mapped
from judges.labels.schema import LabelledSet, LabelType

# name -> (target, keyword arguments, what it is). Shared sets read ../shared/datasets; hub sets need the network.
SETS: dict[str, tuple[str, dict[str, Any], str]] = {
    "begin": ("judges.labels.begin:load_begin", {}, "BEGIN WoW + CMU-DoG + TopicalChat, binary faithfulness (1229)"),
    "begin-wow": ("judges.labels.begin:load_begin", {"subsets": ("wow",)}, "BEGIN Wizard of Wikipedia (430)"),
    "begin-cmu": ("judges.labels.begin:load_begin", {"subsets": ("cmu",)}, "BEGIN CMU-DoG (416)"),
    "begin-tc": ("judges.labels.begin:load_begin", {"subsets": ("tc",)}, "BEGIN TopicalChat (383)"),
    "topical-chat": (
        "judges.labels.topical_chat:load_topical_chat",
        {},
        "USR Topical-Chat groundedness, continuous faithfulness in [0, 1] (360)",
    ),
    "ragchecker": (
        "judges.labels.ragchecker_set:load_ragchecker",
        {},
        "RAGChecker pairwise preferences, correctness / completeness / overall, 2 annotators (560)",
    ),
    "alce": ("judges.labels.alce:load_alce", {}, "ALCE utility 1..5 as usefulness, ASQA + ELI5 (800)"),
    "alce-asqa": ("judges.labels.alce:load_alce", {"datasets": ("asqa",)}, "ALCE utility, ASQA (400)"),
    "alce-eli5": ("judges.labels.alce:load_alce", {"datasets": ("eli5",)}, "ALCE utility, ELI5 (400)"),
    "wikieval": (
        "judges.labels.hub_sets:load_wikieval",
        {},
        "WikiEval pairs from the hub (network; or wikieval:FOLDER)",
    ),
    "ragtruth": (
        "judges.labels.hub_sets:load_ragtruth",
        {},
        "RAGTruth response-level hallucination labels, wandb/RAGTruth-processed (network; ragtruth:DIR)",
    ),
}
HUB_SETS = ("wikieval", "ragtruth")


def load_set(name: str, *, split: str | None = None) -> LabelledSet:
    """A named set; `wikieval:<repo or folder>` reads a hub set from elsewhere; unknown names get the closest ones."""
    hub_name, _, location = name.partition(":")
    if location and hub_name in HUB_SETS:
        target = SETS[hub_name][0]
        module, _, attr = target.partition(":")
        extra = {} if split is None else {"split": split}
        return getattr(importlib.import_module(module), attr)(location, **extra)
    if location and hub_name in SETS:  # `begin-wow:test`: another split of a shipped set
        if split is not None and split != location:
            raise ConfigError(f"{name!r} names split {location!r} but --split says {split!r}")
        name, split = hub_name, location
    if name not in SETS:
        close = difflib.get_close_matches(name, list(SETS), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else f"; known sets: {', '.join(SETS)}"
        raise ConfigError(f"unknown labelled set {name!r}{hint}")
    target, kwargs, _ = SETS[name]
    module, _, attr = target.partition(":")
    loader = getattr(importlib.import_module(module), attr)
    if split is not None:
        import inspect

        if "split" not in inspect.signature(loader).parameters:
            with_splits = [
                n
                for n, (t, _, _) in SETS.items()
                if "split"
                in inspect.signature(
                    getattr(importlib.import_module(t.partition(":")[0]), t.partition(":")[2])
                ).parameters
            ]
            raise ConfigError(f"{name!r} has one split; splits apply to {', '.join(with_splits)}")
        kwargs = {**kwargs, "split": split}
    return loader(**kwargs)


def open_labels(
    spec: str,
    *,
    columns: str | None = None,
    metric: str | None = None,
    label_type: str | None = None,
    scale: tuple[float, float] | None = None,
    split: str | None = None,
    label_map: dict[str, float] | None = None,
    keep: tuple[str, ...] = (),
) -> LabelledSet:
    """`--labels`: a set name (`begin-wow:test` for another split), a labelled-item JSONL, or your own
    CSV/TSV/JSONL/JSON/Parquet file, a saved HF dataset folder or a hub dataset, read with `label_type` through the
    column mapping `columns` (fields it does not name keep their default columns: a plain file needs none), its `keep`
    columns kept under each item's `extra`."""
    named_set = spec in SETS or spec.partition(":")[0] in SETS
    if columns is not None or (label_type is not None and not named_set and _own_file(spec)):
        if not label_type:
            raise ConfigError(
                "--columns needs --label-type (binary, ordinal, continuous, preference), and --metric unless a "
                "column names the metric"
            )
        mapping = dataclasses.replace(ColumnMapping.parse(columns or "", label_map), keep=keep)
        return load_mapped(
            spec, mapping, metric=metric, label_type=LabelType(label_type), scale=scale, split=split or "train"
        )
    if label_map:
        raise ConfigError("--label-map applies to your own file, read with --label-type (and --columns)")
    if named_set:
        return load_set(spec, split=split)
    if Path(spec).is_file():
        return read_label_log(spec) if is_label_log(spec) else _labelled_items(spec)
    close = difflib.get_close_matches(spec, list(SETS), n=3)
    hint = (
        f" (did you mean {' or '.join(close)}?)"
        if close
        else "; give a set name, a labelled-item JSONL, or your own file with --label-type (and --columns)"
    )
    raise InputError(f"no labelled set or file named {spec!r}{hint}")


def _own_file(spec: str) -> bool:
    """A file or saved dataset folder of the user's own (not a labels file written by `judgelab label`)."""
    path = Path(spec)
    return path.is_dir() or (path.is_file() and not is_label_log(spec))


def _labelled_items(path: str) -> LabelledSet:
    """A labelled-item JSONL; a record without a metric or label type is most likely a file of one's own."""
    try:
        return read_labels(path)
    except InputError as err:
        if err.message != "missing field" or err.field not in ("metric", "label_type"):
            raise
        raise InputError(
            "missing field; read your own file with --label-type (binary, ordinal, continuous) and name its metric "
            "with --metric (tune: --metrics)",
            path=err.path,
            line=err.line,
            field=err.field,
        ) from None
