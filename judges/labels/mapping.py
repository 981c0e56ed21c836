"""A user's own labelled data (CSV, TSV, JSONL, JSON, Parquet or a Hugging Face dataset) through a column mapping."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, InputError
from judges.files.checked import json_type, too_large
from judges.labels.field_paths import fans_out, get_field, tokens
from judges.labels.schema import (
    NO_TEXT,
    LabelledItem,
    LabelledSet,
    LabelType,
    check_consistent,
    check_label,
    check_scale,
    default_scale,
)
from judges.labels.tables import iter_rows
from judges.types import Sample

__all__ = ["ColumnMapping", "get_field", "iter_rows", "load_mapped", "map_rows", "parse_label_map"]


def parse_label_map(text: str | None) -> dict[str, float]:
    """`--label-map "Fully attributable=1,Generic=0,yes=1,no=0"`: text labels to numbers (the last `=` splits)."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        name, sep, number = part.rpartition("=")
        try:
            if not sep or not name.strip() or not math.isfinite(float(number)):
                raise ValueError
            out[name.strip()] = float(number)
        except ValueError:
            raise ConfigError(f"--label-map: expected TEXT=NUMBER, got {part!r}") from None
    return out


@dataclass(frozen=True)
class ColumnMapping:
    """Which column (a field path) of the user's rows holds each field of a labelled item.

    `label` is required; the texts are not (labels and predictions that share ids need none). `input` (the question) defaults to none, for tasks without one
    (summarisation, dialogue grounded on a snippet); `id` to the line (CSV, TSV, JSONL) or row number, and
    `id=doc+system` joins two columns with "/"; `annotator` to "human";
    `references` to none (a list, a JSON list in a string, or one text); `expected_output` to ""; `metric` to the
    `--metric` given. Paths may be nested (`doc.sentences[0]`), fan out over a list (`annotations.*.label`: one
    label per annotator, with `annotator=annotations.*.name` or numbered annotators) or be constants
    (`metric=const:faithfulness`). `actual_output_b` is the second answer of a pairwise preference;
    `system` names the system that wrote the answer (for system-aware agreement);
    `label_values` turns text labels into numbers (e.g. {"yes": 1, "no": 0}).
    """

    label: str
    actual_output: str | None = None
    input: str | None = None
    id: str | None = None
    references: str | None = None
    expected_output: str | None = None
    annotator: str | None = None
    actual_output_b: str | None = None
    metric: str | None = None
    system: str | None = None
    label_values: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, label_values: Mapping[str, float] | None = None) -> ColumnMapping:
        """From `field=path,field=path`, e.g. `input=question,actual_output=answer,label=annotations.*.label`."""
        known = {f.name for f in fields(cls)} - {"label_values"}
        pairs: dict[str, str] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, column = part.partition("=")
            if not sep or not column.strip():
                raise ConfigError(f"--columns: expected field=column, got {part!r}")
            if name.strip() not in known:
                raise ConfigError(f"--columns: unknown field {name.strip()!r} (fields: {', '.join(sorted(known))})")
            if not column.strip().startswith("const:"):
                for path in column.strip().split("+") if name.strip() == "id" else [column.strip()]:
                    tokens(path)  # a malformed path is a ConfigError now, not on the first row
            pairs[name.strip()] = column.strip()
        missing = [name for name in ("label",) if name not in pairs]
        if missing:
            raise ConfigError(f"--columns must name the column of: {', '.join(missing)}")
        for name in ("input", "actual_output", "id", "metric", "expected_output", "actual_output_b", "system"):
            if name in pairs and fans_out(pairs[name]):
                raise ConfigError(
                    f"--columns: {name} is one value per row; `*` fans out only label, annotator and references"
                )
        return cls(**pairs, label_values=dict(label_values or {}))


def _text(value: Any, *, path: str, line: int, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"expected text, got {json_type(value)}", path=path, line=line, field=name)
    return value


def _references(value: Any, *, path: str, line: int, name: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str) and value.lstrip().startswith("["):
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(value)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError("expected a list of texts or one text", path=path, line=line, field=name)


def _label(value: Any, mapping: ColumnMapping, label_type: LabelType, *, path: str, line: int) -> float:
    """A row's label as a number: a text label through --label-map, a true/false only for binary labels, never a
    non-finite number or one beyond the float range."""
    if isinstance(value, str) and value.strip() in mapping.label_values:
        return float(mapping.label_values[value.strip()])
    if isinstance(value, bool):
        if label_type is LabelType.BINARY:
            return float(value)
        raise InputError(
            f"expected a number, got the boolean {json.dumps(value)} ({label_type.value} labels are numbers)",
            path=path,
            line=line,
            field=mapping.label,
        )
    try:
        number = float(value)
    except OverflowError:
        raise InputError(too_large(value), path=path, line=line, field=mapping.label) from None
    except (TypeError, ValueError):
        hint = (
            f" (known text labels: {', '.join(mapping.label_values)})"
            if mapping.label_values
            else "; map text labels with --label-map TEXT=NUMBER,..."
        )
        raise InputError(f"expected a number, got {value!r}{hint}", path=path, line=line, field=mapping.label) from None
    if math.isnan(number):
        raise InputError("the label is missing (NaN)", path=path, line=line, field=mapping.label)
    if not math.isfinite(number):
        raise InputError(f"expected a finite number, got {number}", path=path, line=line, field=mapping.label)
    return number


def _column(row: Mapping[str, Any], name: str | None, where: dict[str, Any], default: Any = None) -> Any:
    """The value of a mapped column; `default` when the field is not mapped, an InputError when the column is absent."""
    if name is None:
        return default
    try:
        return get_field(row, name)
    except KeyError:
        raise InputError("missing column", field=name, **where) from None


def _annotated(row: Mapping[str, Any], mapping: ColumnMapping, where: dict[str, Any]) -> list[tuple[str, Any]]:
    """(annotator, raw label) pairs of a row: one, or one per element when the label path fans out."""
    raw = _column(row, mapping.label, where)
    names = _column(row, mapping.annotator, where, "human")
    if not isinstance(raw, list):
        return [(str(names), raw)]
    if isinstance(names, list):
        if len(names) != len(raw):
            raise InputError(f"{len(raw)} labels but {len(names)} annotators", field=mapping.annotator, **where)
        pairs = list(zip(map(str, names), raw))
    else:
        prefix = "annotator" if mapping.annotator is None else str(names)
        pairs = [(f"{prefix}-{k}", label) for k, label in enumerate(raw, start=1)]
    return [(name, label) for name, label in pairs if label is not None and label != ""]  # a skipped item


def map_rows(
    rows: Iterable[tuple[int, Mapping[str, Any]]],
    mapping: ColumnMapping,
    *,
    metric: str | None,
    label_type: LabelType,
    scale: tuple[float, float] | None = None,
    path: str = "",
) -> list[LabelledItem]:
    """Labelled items from (line, row) pairs; the scale of continuous labels defaults to the observed range."""
    scale = scale or default_scale(label_type)
    if scale is None and label_type is not LabelType.CONTINUOUS:
        raise ConfigError(f"{label_type.value} labels need a scale (--scale LOW,HIGH)")
    if scale is not None and (problem := check_scale(label_type, scale)):
        raise ConfigError(f"--scale {scale[0]:g},{scale[1]:g}: {problem}")
    if metric is None and mapping.metric is None:
        raise ConfigError("name the metric: --metric M, or --columns metric=COLUMN (or metric=const:M)")
    staged = []
    for line, row in rows:
        where: dict[str, Any] = {"path": path, "line": line}
        sample = Sample(
            input=_text(_column(row, mapping.input, where), name=str(mapping.input), **where),
            references=_references(_column(row, mapping.references, where), name=str(mapping.references), **where),
            expected_output=_text(
                _column(row, mapping.expected_output, where), name=str(mapping.expected_output), **where
            ),
            actual_output=None
            if mapping.actual_output is None
            else _text(_column(row, mapping.actual_output, where), name=mapping.actual_output, **where),
        )
        if sample == NO_TEXT:
            sample = NO_TEXT  # a million labels without text share one sample
        answer_b = _column(row, mapping.actual_output_b, where)
        if label_type is LabelType.PREFERENCE and answer_b is None:
            raise ConfigError("preference labels need --columns actual_output_b=<column of the second answer>")
        item_id = (
            "/".join(str(_column(row, part, where)) for part in mapping.id.split("+")) if mapping.id else str(line)
        )
        row_metric = str(_column(row, mapping.metric, where, metric))
        system = _column(row, mapping.system, where)
        for annotator, raw in _annotated(row, mapping, where):
            staged.append(
                (
                    line,
                    item_id,
                    row_metric,
                    _label(raw, mapping, label_type, **where),
                    annotator,
                    sample,
                    None if answer_b is None else _text(answer_b, name=str(mapping.actual_output_b), **where),
                    None if system is None or system == "" else str(system),
                )
            )
    if not staged:
        raise InputError("no rows to read", path=path or None)
    if scale is None:
        values = [staged_row[3] for staged_row in staged]
        scale = (min(values), max(values)) if min(values) < max(values) else (min(values), min(values) + 1.0)
    items = []
    for line, item_id, row_metric, label, annotator, sample, answer_b, system in staged:
        if problem := check_label(label_type, label, scale):
            raise InputError(problem, path=path, line=line, field=mapping.label)
        items.append(
            (
                line,
                LabelledItem(
                    id=item_id,
                    metric=row_metric,
                    label=label,
                    label_type=label_type,
                    scale=(float(scale[0]), float(scale[1])),
                    annotator=annotator,
                    sample=sample,
                    answer_b=answer_b,
                    system=system,
                ),
            )
        )
    check_consistent(items, path=path or None)
    return [item for _, item in items]


def load_mapped(
    source: str,
    mapping: ColumnMapping,
    *,
    metric: str | None,
    label_type: LabelType,
    scale: tuple[float, float] | None = None,
    split: str = "train",
) -> LabelledSet:
    """A user's labelled data as a LabelledSet, read through `mapping`."""
    items = map_rows(
        iter_rows(source, split=split), mapping, metric=metric, label_type=label_type, scale=scale, path=source
    )
    return LabelledSet(Path(source).stem or source, tuple(items), source=source)
