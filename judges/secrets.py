"""Masking credentials: keys that name one at any depth, and known secret values inside any string."""

from __future__ import annotations

import functools
import os
import re
import threading
from typing import Any

MASK = "***"
DATA_URL = re.compile(r"(data:[\w/+.-]+;base64,)[A-Za-z0-9+/=]+")
MIN_SECRET_LENGTH = 8

# A key that names a credential: api_key, key, token, secret, password, authorization, bearer, cookie,
# headers (which carry Authorization), and NAME_API_KEY / NAME_TOKEN / ... spellings.
_CREDENTIAL_KEY = re.compile(
    r"(^|[_\-.])(api[_\-]?key|key|token|secret|password|passwd|authorization|auth|bearer|cookies?|headers?)$", re.I
)
_SECRET_ENV_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")  # of the variable's name, upper-cased
_registered: set[str] = set()
_lock = threading.Lock()


def is_credential_key(key: object, value: object = None) -> bool:
    """Whether a mapping key names a credential (its value must never be stored or shown).

    A bare `key` holding a short string (a sentence key such as "s1" in a metric's steps) is not one: no API key
    is that short."""
    if not isinstance(key, str) or not _names_credential(key):
        return False
    return not (key.lower() == "key" and (not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH))


@functools.lru_cache(maxsize=4096)  # records repeat a few dozen keys many times over
def _names_credential(key: str) -> bool:
    return _CREDENTIAL_KEY.search(key) is not None


def register_secret(value: object) -> None:
    """Remember a secret in use (an API key, a header value) so that `scrub` masks it inside any string."""
    if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(value)


def register_secrets_in(value: Any) -> None:
    """Register every string found under a credential key of `value`, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if is_credential_key(key, item):
                for text in _strings(item):
                    register_secret(text)
            else:
                register_secrets_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            register_secrets_in(item)


def known_secrets() -> list[str]:
    """Registered secrets and the values of `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD` variables, longest first."""
    environ = os.environ
    named = [k for k in environ if k.upper().endswith(_SECRET_ENV_SUFFIXES)]  # names first: values only of those
    found = {v for v in (environ.get(k, "") for k in named) if len(v) >= MIN_SECRET_LENGTH}
    with _lock:
        found |= _registered
    return sorted(found, key=len, reverse=True)


def scrub(value: Any) -> Any:
    """A copy of a JSON-like value with credential fields set to "***" and known secrets masked in strings."""
    return scrub_with(value, known_secrets())


def scrub_text(text: str) -> str:
    """`text` as it may be stored or printed (an error message may echo the request): every known secret replaced
    by "***", and the bytes of any image data URL cut."""
    return DATA_URL.sub(r"\1[image bytes]", _mask(text, known_secrets()))


def split_credentials(value: Any) -> tuple[Any, Any]:
    """(value without credential fields, the credential fields alone), at any depth; for dicts and lists."""
    if isinstance(value, dict):
        public: dict[str, Any] = {}
        secret: dict[str, Any] = {}
        for key, item in value.items():
            if is_credential_key(key, item):
                secret[key] = item
                continue
            kept, hidden = split_credentials(item)
            public[key] = kept
            if hidden not in (None, {}, []):
                secret[key] = hidden
        return public, secret
    return value, None


def credential_paths(value: Any, prefix: str = "") -> list[str]:
    """Dotted paths of the credential fields of `value` (`extra_body.api_key`), for reports to name."""
    if not isinstance(value, dict):
        return []
    paths = []
    for key, item in value.items():
        path = f"{prefix}{key}"
        paths += [path] if is_credential_key(key, item) else credential_paths(item, f"{path}.")
    return sorted(paths)


def scrub_with(value: Any, secrets: list[str]) -> Any:
    """`scrub` with the secrets to mask given (the known ones, for `scrub`)."""
    # what needs a look: containers, and strings when there are secrets to mask; any other value is kept as is
    look = (dict, list, tuple, str) if secrets else (dict, list, tuple)
    if isinstance(value, str):
        return _mask(value, secrets) if secrets else value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if is_credential_key(key, item) and item not in (None, ""):
                out[key] = MASK
            else:
                out[key] = scrub_with(item, secrets) if isinstance(item, look) else item
        return out
    if isinstance(value, (list, tuple)):
        return [scrub_with(item, secrets) if isinstance(item, look) else item for item in value]
    return value


def _mask(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []
