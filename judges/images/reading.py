"""Reading image references of a record: a path relative to the data file, an http(s) URL or a data URL, each
checked (local bytes must be a readable image) and turned into an Image and its marker text."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import mimetypes
from pathlib import Path
from typing import Any

from judges.images.known import remember
from judges.types import Image

IMAGE_KEY = "image"
TEXT_KEY = "text"


class ImageProblem(ValueError):
    """An image reference that cannot be used; the message says why, in a few words."""


def read_image(spec: str, base_dir: Path) -> Image:
    """The Image `spec` names (a path relative to `base_dir`, an http(s) URL or a data URL); ImageProblem when a
    local file is missing or not a readable image. A URL is not fetched: the judge's provider reads it."""
    if spec.startswith(("http://", "https://")):
        mime = _mime_from_name(spec)
        image = Image("url", spec, spec, hashlib.sha256(spec.encode("utf-8")).hexdigest(), mime)
    elif spec.startswith("data:"):
        header, comma, payload = spec.partition(",")
        if not comma or not header.endswith(";base64"):
            raise ImageProblem("a data URL must be data:image/...;base64,<bytes>")
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise ImageProblem("the data URL's base64 does not decode") from None
        image = Image("data", "data URL", spec, hashlib.sha256(data).hexdigest(), _check_bytes(data, "data URL"))
    else:
        path = (base_dir / spec).resolve()
        if not path.is_file():
            raise ImageProblem(f"image file not found: {spec} (looked for {path})")
        data = path.read_bytes()
        image = Image("file", spec, str(path), hashlib.sha256(data).hexdigest(), _check_bytes(data, spec))
    remember(image)
    return image


def _check_bytes(data: bytes, name: str) -> str:
    """The image's MIME type, or ImageProblem when Pillow cannot read it."""
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            opened.verify()
            kind = opened.format or "PNG"
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        reason = "not an image Pillow can read" if isinstance(err, UnidentifiedImageError) else f"corrupt ({err})"
        raise ImageProblem(f"{name}: {reason}") from None
    return PILImage.MIME.get(kind, "image/png")


def _mime_from_name(name: str) -> str:
    """The MIME type a URL's file name implies (PNG when it implies none)."""
    guessed, _ = mimetypes.guess_type(name.split("?", 1)[0])
    return guessed if guessed and guessed.startswith("image/") else "image/png"


def is_image_part(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {IMAGE_KEY}


def parts_text(value: Any, base_dir: Path, images: list[Image]) -> str:
    """A text, an image part `{"image": ...}` or a list of text and image parts as one text, each image standing
    as its marker (appended to `images`). ImageProblem for a part of another shape or an unusable image."""
    if isinstance(value, str):
        return value
    if is_image_part(value):
        spec = value[IMAGE_KEY]
        if not isinstance(spec, str) or not spec.strip():
            raise ImageProblem('an image part is {"image": "<path, http(s) URL or data URL>"}')
        image = read_image(spec.strip(), base_dir)
        images.append(image)
        return image.marker
    if isinstance(value, dict) and set(value) == {TEXT_KEY} and isinstance(value[TEXT_KEY], str):
        return str(value[TEXT_KEY])
    if isinstance(value, list) and value and not any(isinstance(part, list) for part in value):
        return "\n".join(parts_text(part, base_dir, images) for part in value)
    raise ImageProblem('expected a text, an image part {"image": ...} or a list of text and image parts')


def has_parts(value: Any) -> bool:
    """Whether a field's value holds image parts (or text parts), rather than plain text."""
    if isinstance(value, list):
        return any(has_parts(part) for part in value)
    return isinstance(value, dict) and (is_image_part(value) or set(value) == {TEXT_KEY})
