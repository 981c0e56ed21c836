"""Slices of labelled items by one field (metric, system, group, annotator, or any field kept under `extra`)."""

from __future__ import annotations

from judges.errors import ConfigError
from judges.labels.field_paths import get_field
from judges.labels.schema import LabelledItem, LabelledSet

ATTRIBUTES = ("metric", "system", "group", "annotator")  # a labelled item's own fields a slice may name
MISSING = "(no {field})"  # the slice of items that lack the field (certified or not like any other)


def slice_value(item: LabelledItem, field: str) -> str | None:
    """The item's value of `field`: one of its own fields, else the path under its `extra` (`domain`, `meta.lang`);
    None when the item has none."""
    if field in ATTRIBUTES:
        value = getattr(item, field)
    else:  # a labelled-item file's `extra` path, or your own file's column kept by its path
        value = get_field(item.extra, field, None) if item.extra else None
    if value is None or value == "" or isinstance(value, (dict, list)):
        return None
    return str(value)


def check_slice_field(labels: LabelledSet, field: str, flag: str = "--slice") -> None:
    """A ConfigError (one line naming the field) when no labelled item carries `field`."""
    if not field.strip():
        raise ConfigError(f"{flag}: name a label field, e.g. {flag} domain")
    if not any(slice_value(item, field) is not None for item in labels.items):
        raise ConfigError(
            f"{flag} {field}: no label in {labels.name} has a field {field!r} (a label's own fields: "
            f"{', '.join(ATTRIBUTES)}; any other is read under `extra` of a labelled-item file, or from your own "
            "file's column of that name)"
        )


def slice_name(item: LabelledItem, field: str) -> str:
    """The slice an item belongs to: its value of `field`, or `(no FIELD)`."""
    value = slice_value(item, field)
    return MISSING.format(field=field) if value is None else value


def split_by(labels: LabelledSet, field: str) -> dict[str, LabelledSet]:
    """The labels split by `field`, each slice keeping the items' order, slices in first-seen order."""
    groups: dict[str, list[LabelledItem]] = {}
    for item in labels.items:
        groups.setdefault(slice_name(item, field), []).append(item)
    return {
        name: LabelledSet(f"{labels.name}[{field}={name}]", tuple(items), labels.source)
        for name, items in groups.items()
    }
