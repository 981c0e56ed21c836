"""A user's own labelled data (CSV, TSV, JSONL, JSON or a Hugging Face dataset) through a column mapping."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from judges.errors import ConfigError, InputError
from judges.types import Sample
from judges.labels.schema import (LabelledItem, LabelledSet, LabelType, check_consistent, check_label, check_scale,
                     default_scale)

_MISSING = object()


def get_field(record: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """`record[path]`, or a nested value for a dotted path (`model1.ragchecker.score`); KeyError if absent."""
    if path in record:
        return record[path]
    value: Any = record
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif default is not _MISSING:
            return default
        else:
            raise KeyError(path)
    return value


@dataclass(frozen=True)
class ColumnMapping:
    """Which column of the user's rows holds each field of a labelled item (dotted paths for nested fields).

    `label`, `input` and `actual_output` are required; `id` defaults to the row number (from 1),
    `annotator` to "human", `references` to none (a list column, a JSON list in a string, or one text),
    `expected_output` to "". `actual_output_b` is the second answer of a pairwise preference.
    `label_values` turns text labels into numbers (e.g. {"yes": 1, "no": 0}).
    """

    label: str
    input: str
    actual_output: str
    id: str | None = None
    references: str | None = None
    expected_output: str | None = None
    annotator: str | None = None
    actual_output_b: str | None = None
    label_values: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, label_values: Mapping[str, float] | None = None) -> ColumnMapping:
        """From `field=column,field=column`, e.g. `input=question,actual_output=answer,label=score`."""
        known = {f.name for f in fields(cls)} - {"label_values"}
        pairs: dict[str, str] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, column = part.partition("=")
            if not sep or not column.strip():
                raise ConfigError(f"--columns: expected field=column, got {part!r}")
            if name.strip() not in known:
                raise ConfigError(f"--columns: unknown field {name.strip()!r} (fields: {', '.join(sorted(known))})")
            pairs[name.strip()] = column.strip()
        missing = [name for name in ("label", "input", "actual_output") if name not in pairs]
        if missing:
            raise ConfigError(f"--columns must name the column of: {', '.join(missing)}")
        return cls(**pairs, label_values=dict(label_values or {}))


def _text(value: Any, *, path: str, line: int, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"expected text, got {type(value).__name__}", path=path, line=line, field=name)
    return value


def _references(value: Any, *, path: str, line: int, name: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError("expected a list of texts or one text", path=path, line=line, field=name)


def _label(value: Any, mapping: ColumnMapping, *, path: str, line: int) -> float:
    if isinstance(value, str) and value.strip() in mapping.label_values:
        return float(mapping.label_values[value.strip()])
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        hint = f" (known text labels: {', '.join(mapping.label_values)})" if mapping.label_values else ""
        raise InputError(f"expected a number, got {value!r}{hint}", path=path, line=line,
                         field=mapping.label) from None
    if math.isnan(number):
        raise InputError("the label is missing (NaN)", path=path, line=line, field=mapping.label)
    return number


def _column(row: Mapping[str, Any], name: str | None, where: dict[str, Any], default: Any = None) -> Any:
    """The value of a mapped column; `default` when the field is not mapped, an InputError when the column is absent."""
    if name is None:
        return default
    try:
        return get_field(row, name)
    except KeyError:
        raise InputError("missing column", field=name, **where) from None


def map_rows(rows: Iterable[tuple[int, Mapping[str, Any]]], mapping: ColumnMapping, *, metric: str,
             label_type: LabelType, scale: tuple[float, float] | None = None, path: str = "") -> list[LabelledItem]:
    """Labelled items from (line, row) pairs; the scale of continuous labels defaults to the observed range."""
    scale = scale or default_scale(label_type)
    if scale is None and label_type is not LabelType.CONTINUOUS:
        raise ConfigError(f"{label_type.value} labels need a scale (--scale LOW,HIGH)")
    if scale is not None and (problem := check_scale(label_type, scale)):
        raise ConfigError(f"--scale {scale[0]:g},{scale[1]:g}: {problem}")
    staged = []
    for line, row in rows:
        where: dict[str, Any] = {"path": path, "line": line}
        sample = Sample(input=_text(_column(row, mapping.input, where), name=mapping.input, **where),
                        references=_references(_column(row, mapping.references, where), name=str(mapping.references),
                                               **where),
                        expected_output=_text(_column(row, mapping.expected_output, where),
                                              name=str(mapping.expected_output), **where),
                        actual_output=_text(_column(row, mapping.actual_output, where), name=mapping.actual_output,
                                            **where))
        answer_b = _column(row, mapping.actual_output_b, where)
        if label_type is LabelType.PREFERENCE and answer_b is None:
            raise ConfigError("preference labels need --columns actual_output_b=<column of the second answer>")
        label = _label(_column(row, mapping.label, where), mapping, **where)
        staged.append((line, str(_column(row, mapping.id, where, line)), label,
                       str(_column(row, mapping.annotator, where, "human")), sample,
                       None if answer_b is None else _text(answer_b, name=str(mapping.actual_output_b), **where)))
    if not staged:
        raise InputError("no rows to read", path=path or None)
    if scale is None:
        values = [label for _, _, label, _, _, _ in staged]
        scale = (min(values), max(values)) if min(values) < max(values) else (min(values), min(values) + 1.0)
    items = []
    for line, item_id, label, annotator, sample, answer_b in staged:
        if problem := check_label(label_type, label, scale):
            raise InputError(problem, path=path, line=line, field=mapping.label)
        items.append((line, LabelledItem(id=item_id, metric=metric, label=label, label_type=label_type,
                                         scale=(float(scale[0]), float(scale[1])), annotator=annotator,
                                         sample=sample, answer_b=answer_b)))
    check_consistent(items, path=path or None)
    return [item for _, item in items]


def iter_rows(source: str, *, split: str = "train") -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line or row number, row) from a CSV/TSV/JSONL/JSON file, else a Hugging Face dataset (hub id or folder)."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        if not path.is_file():
            raise InputError("file not found", path=source)
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t" if suffix == ".tsv" else ",")
            for number, row in enumerate(reader, start=2):
                yield number, row
    elif suffix == ".jsonl":
        from judges.jsonl import read_jsonl

        yield from read_jsonl(path)
    elif suffix == ".json":
        if not path.is_file():
            raise InputError("file not found", path=source)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(f"not valid JSON ({err.msg})", path=source, line=err.lineno) from None
        if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
            raise InputError("expected a JSON list of objects", path=source)
        yield from enumerate(data, start=1)
    else:
        from judges.labels.hub_sets import load_hub_rows

        yield from enumerate(load_hub_rows(source, split), start=1)


def load_mapped(source: str, mapping: ColumnMapping, *, metric: str, label_type: LabelType,
                scale: tuple[float, float] | None = None, split: str = "train") -> LabelledSet:
    """A user's labelled data as a LabelledSet, read through `mapping`."""
    items = map_rows(iter_rows(source, split=split), mapping, metric=metric, label_type=label_type, scale=scale,
                     path=source)
    return LabelledSet(Path(source).stem or source, tuple(items), source=source)
