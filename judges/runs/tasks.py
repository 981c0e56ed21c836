"""The sample as every kind's record keeps it."""

from __future__ import annotations

import dataclasses
from typing import Any

from judges.types import Sample


def sample_fields(sample: Sample) -> dict[str, Any]:
    """The judged sample as the record keeps it (the fields it has, but its id), so a report can show it and
    re-render the prompts sent; its images by source and hash (never their bytes)."""
    fields: dict[str, Any] = {}
    for name in (f.name for f in dataclasses.fields(sample) if f.name != "id"):
        value = getattr(sample, name)
        if name == "images":
            value = [image.to_dict() for image in value] or None
        elif isinstance(value, tuple):
            value = list(value)
        if value is not None:
            fields[name] = value
    return fields
