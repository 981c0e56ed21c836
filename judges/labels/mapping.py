"""A user's own labelled data (CSV, TSV, JSONL, JSON, Parquet or a Hugging Face dataset) through a column mapping."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from judges.errors import ConfigError, InputError
from judges.files.checked import json_type
from judges.labels.field_paths import fans_out, get_field, tokens
from judges.labels.label_checks import check_label, check_scale, default_scale
from judges.labels.label_values import label_number, parse_label_map
from judges.labels.schema import NO_EXTRA, NO_TEXT, LabelledItem, LabelledSet, LabelType, check_consistent
from judges.labels.tables import iter_rows
from judges.types import Sample

__all__ = ["ColumnMapping", "get_field", "iter_rows", "load_mapped", "map_rows", "parse_label_map"]


@dataclass(frozen=True)
class ColumnMapping:
    """Which column (a field path) of the user's rows holds each field of a labelled item.

    A field not mapped keeps its default column, its own name (`label`, `id`, `input`, `references`,
    `expected_output`, `actual_output`, `annotator`, `actual_output_b`, `metric`, `system`, `group`: the labelled-item
    file's names), so a plain file needs no mapping and a partial one renames only what differs. A mapped column
    must be there on every row; a default one may be absent, except `label`. Absent, the texts are empty (labels and
    predictions that share ids need none; `input` is absent for tasks without a question), `id` is the line (CSV,
    TSV, JSONL) or row number, `annotator` "human", `references` none (a list, a JSON list in a string, or one text),
    `metric` the `--metric` given. `id=doc+system` joins two columns with "/". Paths may be nested
    (`doc.sentences[0]`), fan out over a list (`annotations.*.label`: one label per annotator, with
    `annotator=annotations.*.name` or numbered annotators) or be constants (`metric=const:faithfulness`).
    `actual_output_b` is the second answer of a pairwise preference; `system` names the system that wrote the
    answer (for system-aware agreement), `group` the question or source items share (per-group agreement);
    `label_values` turns text labels into numbers (e.g. {"yes": 1, "no": 0}).
    """

    label: str | None = None
    actual_output: str | None = None
    input: str | None = None
    id: str | None = None
    references: str | None = None
    expected_output: str | None = None
    annotator: str | None = None
    actual_output_b: str | None = None
    metric: str | None = None
    system: str | None = None
    group: str | None = None
    label_values: Mapping[str, float] = field(default_factory=dict)
    keep: tuple[str, ...] = ()  # further columns kept under each item's `extra` by their path (e.g. a --slice field)

    def column(self, name: str) -> tuple[str, bool]:
        """The column of a field and whether every row must hold it: a mapped column, or the field's own name
        (required for `label` only)."""
        mapped = getattr(self, name)
        return (mapped, True) if mapped is not None else (name, name == "label")

    @classmethod
    def parse(cls, text: str, label_values: Mapping[str, float] | None = None) -> ColumnMapping:
        """From `field=path,field=path`, e.g. `input=question,actual_output=answer,label=annotations.*.label`;
        fields not named keep their default columns (an empty text maps nothing)."""
        known = {f.name for f in fields(cls)} - {"label_values", "keep"}
        pairs: dict[str, Any] = {}  # field -> column path
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
        for name in ("input", "actual_output", "id", "metric", "expected_output", "actual_output_b", "system", "group"):
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
    field = mapping.column("label")[0]
    return label_number(value, mapping.label_values, label_type, path=path, line=line, field=field)


def _required(row: Mapping[str, Any], column: str, where: dict[str, Any]) -> Any:
    try:
        return get_field(row, column)
    except KeyError:
        raise InputError("missing column", field=column, **where) from None


def _column(
    row: Mapping[str, Any], mapping: ColumnMapping, name: str, where: dict[str, Any], default: Any = None
) -> Any:
    """A field's value on a row: its mapped column's (an InputError when the row lacks it), or its default column's
    when the row holds one, else `default`."""
    column, required = mapping.column(name)
    if required:
        return _required(row, column, where)
    try:
        value = get_field(row, column)
    except KeyError:
        return default
    return default if value is None else value


def _annotated(row: Mapping[str, Any], mapping: ColumnMapping, where: dict[str, Any]) -> list[tuple[str, Any]]:
    """(annotator, raw label) pairs of a row: one, or one per element when the label path fans out."""
    raw = _column(row, mapping, "label", where)
    names = _column(row, mapping, "annotator", where)
    if not isinstance(raw, list):
        return [("human" if names is None else str(names), raw)]
    if isinstance(names, list):
        if len(names) != len(raw):
            raise InputError(f"{len(raw)} labels but {len(names)} annotators", field=mapping.annotator, **where)
        pairs = list(zip(map(str, names), raw))
    else:
        prefix = "annotator" if names is None else str(names)
        pairs = [(f"{prefix}-{k}", label) for k, label in enumerate(raw, start=1)]
    return [(name, label) for name, label in pairs if label is not None and label != ""]  # a skipped item


NO_METRIC = "no metric: name it with --metric (tune: one metric in --metrics) or a column (--columns metric=COLUMN)"


def _staged_row(
    line: int, row: Mapping[str, Any], mapping: ColumnMapping, metric: str | None, label_type: LabelType, path: str
) -> list[tuple[Any, ...]]:
    """One row's labels as (line, id, metric, label, annotator, sample, second answer, system, group, extra), one per
    annotator (extra: the `keep` columns the row holds)."""
    where: dict[str, Any] = {"path": path, "line": line}

    def text(name: str) -> str:
        return _text(_column(row, mapping, name, where), name=mapping.column(name)[0], **where)

    answer = _column(row, mapping, "actual_output", where)
    sample = Sample(
        input=text("input"),
        references=_references(
            _column(row, mapping, "references", where), name=mapping.column("references")[0], **where
        ),
        expected_output=text("expected_output"),
        actual_output=None
        if answer is None and mapping.actual_output is None
        else _text(answer, name=mapping.column("actual_output")[0], **where),
    )
    if sample == NO_TEXT:
        sample = NO_TEXT  # a million labels without text share one sample
    answer_b = _column(row, mapping, "actual_output_b", where)
    if label_type is LabelType.PREFERENCE and answer_b is None:
        raise ConfigError("preference labels need --columns actual_output_b=<column of the second answer>")
    if mapping.id is not None:
        item_id = "/".join(str(_required(row, part, where)) for part in mapping.id.split("+"))
    else:
        item_id = str(_column(row, mapping, "id", where, line))
    row_metric = _column(row, mapping, "metric", where, metric)
    if row_metric is None:
        raise InputError(NO_METRIC, **where)
    system, group = (_column(row, mapping, name, where) for name in ("system", "group"))
    extra = {path: value for path in mapping.keep if (value := get_field(row, path, None)) is not None} or NO_EXTRA
    return [
        (
            line,
            item_id,
            str(row_metric),
            _label(raw, mapping, label_type, **where),
            annotator,
            sample,
            None if answer_b is None else text("actual_output_b"),
            None if system is None or system == "" else str(system),
            None if group is None or group == "" else str(group),
            extra,
        )
        for annotator, raw in _annotated(row, mapping, where)
    ]


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
    staged = [staged for line, row in rows for staged in _staged_row(line, row, mapping, metric, label_type, path)]
    if not staged:
        raise InputError("no rows to read", path=path or None)
    if scale is None:
        values = [staged_row[3] for staged_row in staged]
        scale = (min(values), max(values)) if min(values) < max(values) else (min(values), min(values) + 1.0)
    items = []
    for line, item_id, row_metric, label, annotator, sample, answer_b, system, group, extra in staged:
        if problem := check_label(label_type, label, scale):
            raise InputError(problem, path=path, line=line, field=mapping.column("label")[0])
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
                    group=group,
                    extra=extra,
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
