"""Views of chat content (a text, or text and `image_url` parts) that may be hashed, stored or counted: never an
image's bytes."""

from __future__ import annotations

import hashlib
from typing import Any

# What a token rate limit counts for one image (a high-detail tile's price at OpenAI).
IMAGE_TOKENS = 765


def key_material(messages: Any) -> Any:
    """Messages as a cache key hashes them: each data URL replaced by `sha256:<hex>` of it (so the same image
    bytes give the same key whatever their path, and the key material never holds an image)."""
    if isinstance(messages, dict):
        return {k: key_material(v) for k, v in messages.items()}
    if isinstance(messages, (list, tuple)):
        return [key_material(v) for v in messages]
    if isinstance(messages, str) and messages.startswith("data:"):
        return "sha256:" + hashlib.sha256(messages.encode("ascii", errors="replace")).hexdigest()
    return messages


def content_text(content: Any) -> str:
    """The content as one text: image parts shown as `[image sha256:<hex>]` (of their URL), never their bytes."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return str(content)
    texts = []
    for part in content:
        if part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            texts.append(f"[image sha256:{hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]}…]")
    return "".join(texts)


def image_count(content: Any) -> int:
    return sum(1 for part in content if part.get("type") == "image_url") if isinstance(content, list) else 0


def estimated_chars(content: Any) -> int:
    """About 4 characters a token: the text's length plus each image's token estimate."""
    return len(content_text(content)) + image_count(content) * IMAGE_TOKENS * 4


def estimate_tokens(request: Any) -> int:
    """Prompt tokens (about 4 characters each, a fixed count per image) plus the completion budget: what a token
    rate limit counts."""

    prompt_chars = sum(estimated_chars(message["content"]) for message in request.messages)
    return prompt_chars // 4 + int(request.params.get("max_tokens") or 0)
