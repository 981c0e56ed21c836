"""The images met while loading samples, by content hash, so that a prompt's image markers can be sent."""

from __future__ import annotations

import threading

from judges.types import Image

_by_sha256: dict[str, Image] = {}
_lock = threading.Lock()


def remember(image: Image) -> None:
    """Keep `image` so a marker naming its hash can be turned into an image part."""
    with _lock:
        _by_sha256.setdefault(image.sha256, image)


def find(sha256: str) -> Image | None:
    with _lock:
        return _by_sha256.get(sha256)
