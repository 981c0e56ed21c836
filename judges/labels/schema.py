"""The labelled-item type: a sample, one human label for one metric, and who gave it."""

from __future__ import annotations

import dataclasses
import functools
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast, overload

from judges.errors import InputError
from judges.files.checked import id_problem, json_type
from judges.files.jsonl import LineProblem
from judges.labels.label_checks import LabelType as LabelType  # re-exported: where labelled items are defined
from judges.labels.label_checks import label_on_scale
from judges.types import Sample

NO_TEXT = Sample(input="", references=(), expected_output="")  # one shared sample for every label without text


class _NoExtra(dict[str, Any]):
    """The one shared, empty `extra` of labels that carry none (a million labels would hold a million empty
    dicts); a dict (it copies, pickles and encodes like one) that refuses to be filled."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("the shared empty `extra` of labelled items is read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refuse  # type: ignore[assignment]


NO_EXTRA: Mapping[str, Any] = _NoExtra()


@dataclass(frozen=True, slots=True)
class LabelledItem:
    """One human label: `label` for `metric` given by `annotator` to `sample` (and `answer_b` for a pair).

    Items with the same `id` and `metric` but different annotators are the same sample labelled twice;
    that is what the human-human ceiling is computed from. `scale` is the label's (lowest, highest)
    value; for binary labels it is (0, 1), for preferences it is symmetric around 0 (e.g. (-2, 2)).
    """

    id: str
    metric: str
    label: float
    label_type: LabelType
    scale: tuple[float, float]
    annotator: str
    sample: Sample
    answer_b: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    system: str | None = None  # the system (pipeline, model) that wrote the answer, for system-aware agreement
    group: str | None = None  # the question or source the item shares with others, for per-group agreement

    def to_record(self) -> dict[str, Any]:
        """The JSONL record (see `parse_item` for the schema)."""
        out: dict[str, Any] = {
            "id": self.id,
            "metric": self.metric,
            "label": _plain(self.label),
            "label_type": self.label_type.value,
            "scale": [_plain(v) for v in self.scale],
            "annotator": self.annotator,
            "input": self.sample.input,
            "references": list(self.sample.references or ()),
            "expected_output": self.sample.expected_output,
            "actual_output": self.sample.actual_output,
        }
        if self.answer_b is not None:
            out["actual_output_b"] = self.answer_b
        if self.system is not None:
            out["system"] = self.system
        if self.group is not None:
            out["group"] = self.group
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


# LabelledItem's mutable twin (the same slots in the same order): an item is built as one, then made a LabelledItem
# by its class. A frozen dataclass sets each field through object.__setattr__, a third of the time of reading a
# million labels; the twin assigns them plainly, and the item is as frozen and equal as one made by the constructor.
_Draft = dataclasses.make_dataclass("_Draft", [(f.name, f.type) for f in dataclasses.fields(LabelledItem)], slots=True)


def _built(*values: Any) -> LabelledItem:
    """A LabelledItem of every field's value, in field order, without the frozen constructor's per-field calls."""
    item = _Draft(*values)
    item.__class__ = LabelledItem
    return cast(LabelledItem, item)


Annotation = tuple[tuple[str, float], ...]  # an item's (annotator, label) pairs


class OneLabelEach(Sequence[Annotation]):
    """Each item's one (annotator, label) pair, made when read: a million labels hold no tuple per item."""

    def __init__(self, items: tuple[LabelledItem, ...]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Annotation: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Annotation]: ...

    def __getitem__(self, index: int | slice) -> Annotation | Sequence[Annotation]:
        if isinstance(index, slice):
            return [((item.annotator, item.label),) for item in self._items[index]]
        item = self._items[index]
        return ((item.annotator, item.label),)

    def __iter__(self) -> Iterator[Annotation]:
        return (((item.annotator, item.label),) for item in self._items)


@dataclass(frozen=True)
class LabelledSet:
    """Labelled items from one source, possibly several metrics and annotators."""

    name: str
    items: tuple[LabelledItem, ...]
    source: str = ""

    def metrics(self) -> list[str]:
        return list(self._metrics)

    @functools.cached_property
    def _metrics(self) -> tuple[str, ...]:
        """The metrics' names, sorted, gathered once (a board asks for them per candidate)."""
        return tuple(sorted({item.metric for item in self.items}))

    def for_metric(self, metric: str) -> LabelledSet:
        if metric not in self.metrics():
            raise InputError(f"no labels for metric {metric!r} in {self.name} (it has: {', '.join(self.metrics())})")
        return LabelledSet(self.name, tuple(i for i in self.items if i.metric == metric), self.source)

    def annotators(self) -> list[str]:
        return sorted({item.annotator for item in self.items})

    @functools.cached_property
    def by_item(self) -> tuple[list[str], Sequence[Annotation]]:
        """Item ids in first-seen order and each item's (annotator, label) pairs, gathered once per set (a board
        measures every judge on the same set); items labelled alike by one annotator share one tuple of pairs, and
        a set of one label per item makes each item's pairs only when read (`OneLabelEach`)."""
        shared: dict[tuple[tuple[str, float], ...], Annotation] = {}
        ids = [item.id for item in self.items]
        if len(set(ids)) == len(ids):  # one label per item (the usual big set): no tuple nor list per item
            return ids, OneLabelEach(self.items)
        order: dict[str, list[tuple[str, float]]] = {}
        for item in self.items:
            order.setdefault(item.id, []).append((item.annotator, item.label))
        pairs = [shared.setdefault(key, key) if len(key) == 1 else key for key in map(tuple, order.values())]
        return list(order), pairs

    @functools.cached_property
    def one_label_each(self) -> array[float] | None:
        """Each item's label in `by_item`'s order when every item has exactly one (the usual big set), else None:
        gathered once per set, a column of numbers."""
        if len(self.by_item[0]) != len(self.items):
            return None
        return array("d", (item.label for item in self.items))


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


_LABEL_TYPES = {t.value: t for t in LabelType}  # a label type by its name, without the enum's call per record
_REQUIRED = ("id", "metric", "label", "label_type")
_TEXT_FIELDS = ("metric", "input", "actual_output", "expected_output", "actual_output_b", "annotator")


def parse_item(record: dict[str, Any], *, path: str, line: int) -> LabelledItem:
    """A LabelledItem from one JSONL record; an InputError names the file, line and field.

    Required: `id` (string or number), `metric`, `label` (number), `label_type` (binary | ordinal |
    continuous | preference). The texts may be absent: agreement with predictions that share the ids needs
    none; `input` (the question) is absent for tasks without one (summarisation, dialogue grounded on a snippet),
    `actual_output` (the answer) when only the judge's grades are compared. `scale` ([low, high]) is required except for
    binary labels. `annotator` defaults to "human"; `references` to []; `expected_output` to "";
    `system` (string or number: which system wrote the answer) and `group` (string or number: the question or source
    items share) to none.
    Pairwise preferences also need `actual_output_b`. Anything under `extra` is kept as is.
    """

    get = record.get
    ident, metric, label_kind = get("id"), get("metric"), get("label_type")
    if ident is None or metric is None or label_kind is None or get("label") is None:
        missing = next(name for name in _REQUIRED if get(name) is None)
        raise InputError("missing field", path=path, line=line, field=missing)
    if type(ident) is not str and (problem := id_problem(ident)):
        raise InputError(problem, path=path, line=line, field="id")
    label_type = _LABEL_TYPES.get(label_kind) if type(label_kind) is str else None
    try:
        if label_type is None:
            label_type = _label_type(label_kind)
        label, scale = label_on_scale(record, label_type)
        references = _references(get("references", ()))
        for name in _TEXT_FIELDS:
            if (value := get(name)) is not None and type(value) is not str:
                raise LineProblem(f"expected a string, got {json_type(value)}", name)
        answer_b = get("actual_output_b")
        if label_type is LabelType.PREFERENCE and answer_b is None:
            raise LineProblem("a preference label needs the second answer", "actual_output_b")
        extra = get("extra") or NO_EXTRA
        if not isinstance(extra, dict):
            raise LineProblem("expected an object", "extra")
        system, group = get("system"), get("group")
        for name, value in (("system", system), ("group", group)):
            if value is not None and type(value) is not str and (type(value) is not int):
                raise LineProblem(f"expected a string or number, got {json_type(value)}", name)
    except LineProblem as problem:
        raise InputError(str(problem), path=path, line=line, field=problem.field) from None
    question, expected, answer = get("input") or "", get("expected_output") or "", get("actual_output")
    # a million labels without text share one sample
    no_text = not question and not references and not expected and answer is None
    return _built(
        sys.intern(str(ident)),  # one string per id, shared with the judges' outputs read after
        sys.intern(metric),
        float(label),
        label_type,
        scale,
        sys.intern(str(get("annotator") or "human")),
        NO_TEXT if no_text else Sample(question, references, expected, actual_output=answer),
        answer_b,
        extra,
        None if system is None else sys.intern(str(system)),  # a few systems, a million items: one copy each
        None if group is None else str(group),
    )


def _label_type(kind: Any) -> LabelType:
    """A label type that is not one of the names `_LABEL_TYPES` holds: the enum's own lookup, or the one line."""
    try:
        return LabelType(kind)
    except ValueError:
        raise LineProblem(f"must be one of {', '.join(t.value for t in LabelType)}", "label_type") from None


def _references(references: Any) -> tuple[str, ...]:
    """The reference passages: a list of strings, or one string (absent: none)."""
    if references == () or (type(references) is list and not references):
        return ()
    if isinstance(references, str):
        return (references,)
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        raise LineProblem("expected a list of strings", "references")
    return tuple(references)


def check_consistent(items: Iterable[tuple[int | None, LabelledItem]], *, path: str | None = None) -> None:
    """One label type and scale per metric, and one label per (id, metric, annotator); items come with line numbers."""
    kinds: dict[str, tuple[LabelType, tuple[float, float]]] = {}
    seen: dict[tuple[str, str], set[str]] = {}  # ids per (metric, annotator): no tuple per label
    for line, item in items:
        kind = kinds.setdefault(item.metric, (item.label_type, item.scale))
        if kind != (item.label_type, item.scale):
            raise InputError(
                f"metric {item.metric!r} mixes label types or scales: {kind[0].value} {list(kind[1])} "
                f"before, {item.label_type.value} {list(item.scale)} here",
                path=path,
                line=line,
            )
        ids = seen.setdefault((item.metric, item.annotator), set())
        if item.id in ids:
            raise InputError(
                f"item {item.id!r} has a second {item.metric} label from annotator {item.annotator!r}",
                path=path,
                line=line,
                field="id",
            )
        ids.add(item.id)
