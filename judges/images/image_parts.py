"""Chat content with images: a prompt's image markers become OpenAI `image_url` parts (local images as base64
data URLs, shrunk to a maximum side)."""

from __future__ import annotations

import base64
import functools
import io
import re
from typing import Any

from judges.calls.model_spec import IMAGE_MAX_SIDE
from judges.images.known import find
from judges.types import Image

MARKER = re.compile(r"\[image sha256:([0-9a-f]{64})(?: [^\]\n]*)?\]")

Content = str | list[dict[str, Any]]


def has_markers(text: str) -> bool:
    return MARKER.search(text) is not None


def to_content(text: str, max_side: int = IMAGE_MAX_SIDE) -> Content:
    """`text` itself when it names no known image; else its text and image parts, in order."""
    if not has_markers(text):
        return text
    parts: list[dict[str, Any]] = []
    position = 0
    for found in MARKER.finditer(text):
        image = find(found.group(1))
        if image is None:  # a marker-like string of the user's text, not an image of the sample
            continue
        _add_text(parts, text[position : found.start()])
        parts.append({"type": "image_url", "image_url": {"url": image_url(image, max_side)}})
        position = found.end()
    _add_text(parts, text[position:])
    return parts if any(part["type"] == "image_url" for part in parts) else text


def _add_text(parts: list[dict[str, Any]], text: str) -> None:
    if text.strip():
        parts.append({"type": "text", "text": text})


def with_image_parts(messages: list[dict[str, Any]], max_side: int = IMAGE_MAX_SIDE) -> list[dict[str, Any]]:
    """The messages with each text content that names images as multi-part content."""
    return [
        {**m, "content": to_content(m["content"], max_side)} if isinstance(m.get("content"), str) else m
        for m in messages
    ]


def image_url(image: Image, max_side: int) -> str:
    """The URL sent for `image`: an http(s) URL as is, else a data URL of the bytes, no side above `max_side`."""
    if image.kind == "url":
        return image.location
    return _data_url(image.location, image.kind, max_side)


@functools.lru_cache(maxsize=32)  # a shrunk image is up to a few MB of base64: keep only the recent ones
def _data_url(location: str, kind: str, max_side: int) -> str:
    if kind == "data":
        data = base64.b64decode(location.partition(",")[2])
    else:
        with open(location, "rb") as handle:
            data = handle.read()
    data, mime = shrink(data, max_side)
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def shrink(data: bytes, max_side: int) -> tuple[bytes, str]:
    """The image's bytes and MIME type, re-encoded smaller (aspect kept) when a side exceeds `max_side`."""
    from PIL import Image as PILImage

    with PILImage.open(io.BytesIO(data)) as opened:
        kind = opened.format or "PNG"
        if max(opened.size) <= max_side and kind in ("PNG", "JPEG", "GIF", "WEBP"):
            return data, PILImage.MIME[kind]
        opened.thumbnail((max_side, max_side))
        kind = kind if kind in ("PNG", "JPEG", "WEBP") else "PNG"
        out = io.BytesIO()
        opened.save(out, format=kind)
    return out.getvalue(), PILImage.MIME[kind]
