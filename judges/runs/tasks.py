"""The sample as every kind's record keeps it."""

from __future__ import annotations

import dataclasses
from typing import Any

from judges.files.jsonl import KEPT_CHARS, SAMPLE_SHARE, cut_text, max_record_bytes, max_reply_bytes, oversize
from judges.types import Sample


def sample_fields(sample: Sample) -> dict[str, Any]:
    """The judged sample as the record keeps it (the fields it has, but its id), so a report can show it and
    re-render the prompts sent; its images by source and hash (never their bytes). Its texts are capped as a
    judge's reply is (`capped`): a record stays under its limit whatever the size of the sample."""
    fields: dict[str, Any] = {}
    for name in (f.name for f in dataclasses.fields(sample) if f.name != "id"):
        value = getattr(sample, name)
        if name == "images":
            value = [image.to_dict() for image in value] or None
        elif isinstance(value, tuple):
            value = list(value)
        if value is not None:
            fields[name] = value
    return capped(fields)


def capped(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` with each text (a field, or an item of a list field) over the limit of one reply (`max_reply_bytes`)
    cut to its first characters with a marker naming its size, and the texts together within a quarter of the
    record's limit (`SAMPLE_SHARE`): the single texts first (the question, the answers), then the lists' items in
    order, the first that does not fit cut and those after it dropped. What was cut is listed under `truncated`:
    the text (`input`, `references[3]`) and its size in bytes, and how many items of a list were dropped."""
    budget, one = max_record_bytes() // SAMPLE_SHARE, max_reply_bytes()
    if sum(_rough_size(value) for value in fields.values()) * 6 <= min(one, budget):
        return fields  # the usual sample: under the limits even were each character escaped (6 bytes), not measured
    cut: dict[str, Any] = {}

    def keep(text: str, where: str) -> str:
        nonlocal budget
        size = oversize(text, max(0, min(one, budget)))
        if size is not None:
            text = cut_text(text, size, f"sample's {where}", kept=max(0, min(KEPT_CHARS, budget // 6)))
            cut[where] = size
        budget -= len(text.encode())
        return text

    out = {name: keep(value, name) if isinstance(value, str) else value for name, value in fields.items()}
    for name, value in fields.items():
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            kept: list[str] = []
            for item in value:
                if budget < one and (f"{name}[{len(kept) - 1}]" in cut or budget <= 0):
                    cut[f"{name} items dropped"] = len(value) - len(kept)  # past the quarter: the rest is not kept
                    break
                kept.append(keep(item, f"{name}[{len(kept)}]"))
            out[name] = kept
    return {**out, "truncated": cut} if cut else out


def _rough_size(value: Any) -> int:
    """Characters in a field's texts (a list's items summed)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(len(item) for item in value if isinstance(item, str)) + len(value)
    return 0
