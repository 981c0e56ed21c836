"""Masking credentials: keys that name one at any depth, and known secret values inside any string."""

from __future__ import annotations

import base64
import functools
import os
import re
import threading
from typing import Any
from urllib.parse import unquote, unquote_plus

MASK = "***"
DATA_URL = re.compile(r"(data:[\w/+.-]+;base64,)[A-Za-z0-9+/=]+")
MIN_SECRET_LENGTH = 8

# A key that names a credential: api_key, key, token, secret, password, authorization, bearer, cookie,
# headers (which carry Authorization), and NAME_API_KEY / NAME_TOKEN / ... spellings.
_CREDENTIAL_KEY = re.compile(
    r"(^|[_\-.])(api[_\-]?key|key|token|secret|password|passwd|authorization|auth|bearer|cookies?|headers?)$", re.I
)
# The query (and fragment) parameters known to carry no credential: their values are kept as written. Every other
# parameter's value is masked, whatever its name (a gateway may take its token as `?jwt=`, `?hmac=`, `?zzz=`). Keep
# this list short: a name on it is shown in run.json, the reports and every message.
HARMLESS_PARAMS = frozenset(
    [
        "api-version",
        "api_version",
        "model",
        "deployment",
        "region",
        "format",
        "alt",
        "stream",
        "timeout",
        "limit",
        "page",
    ]
)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")
_PAIR_SEPARATOR = re.compile(r"([&;])")  # kept by split: the pairs at even places, the separators between
_QUERY_IN_TEXT = re.compile(r"\?[^\s\"'<>`?=&]+=[^\s\"'<>`]*")  # a query string an error message repeats
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
    """Remember a secret in use (an API key, a header value) so that `scrub` masks it inside any string, as written
    and in any percent-encoding (quote, quote_plus, quoted twice, either case of hex, partly encoded)."""
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
    """`text` as it may be stored or printed (an error message may echo the request): every URL in it masked
    (`mask_url`), and every query echoed without its URL (`?a=1&b=2`), every known secret replaced by "***" (in any
    percent-encoding), and the bytes of any image data URL cut."""
    if "://" in text:
        text = _URL_IN_TEXT.sub(lambda found: mask_url(found.group()), text)
    if "?" in text and "=" in text:
        text = _QUERY_IN_TEXT.sub(lambda found: "?" + _mask_params(found.group()[1:]), text)
    return DATA_URL.sub(r"\1[image bytes]", _mask(text, known_secrets()))


def is_credential_param(name: str) -> bool:
    """Whether a URL query parameter may carry a credential: any whose name is not on `HARMLESS_PARAMS`."""
    return name.strip().lower() not in HARMLESS_PARAMS


def mask_url(url: str) -> str:
    """`url` as it may be recorded, printed or logged: its userinfo (`user:password@`) and the value of every query
    (and fragment) parameter not on `HARMLESS_PARAMS` replaced by "***"; the rest kept as written.

    `http://me:pw@host:8000/v1?api-version=1&jwt=k&x=1` -> `http://***@host:8000/v1?api-version=1&jwt=***&x=***`"""
    scheme, userinfo, host, path, query, fragment = _split(url)
    shown = scheme + ("***@" if userinfo is not None else "") + host + path
    if query is not None:
        shown += "?" + _mask_params(query)
    if fragment is not None:
        shown += "#" + _mask_params(fragment)
    return shown


def split_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """(`url` without its userinfo, (user, password) percent-decoded or None): what a client sends as a header."""
    scheme, userinfo, host, path, query, fragment = _split(url)
    if userinfo is None:
        return url, None
    rest = host + path + ("?" + query if query is not None else "") + ("#" + fragment if fragment is not None else "")
    user, _, password = userinfo.partition(":")
    return scheme + rest, (unquote(user), unquote(password))


def register_url_secrets(url: str | None) -> None:
    """Register what a URL holds as secrets, so that `scrub` masks them in any string: its userinfo (whole, the user
    name and the password, as written and decoded, and its Basic token) and the value of every query parameter not
    on `HARMLESS_PARAMS`."""
    if not url:
        return
    _, userinfo, _, _, query, _ = _split(url)
    found = []
    if userinfo is not None:
        user, _, password = userinfo.partition(":")
        found += [userinfo, user, password, unquote(userinfo), unquote(user), unquote(password)]
        found.append(basic_token(unquote(user), unquote(password)))
    for pair in _PAIR_SEPARATOR.split(query or "")[::2]:
        name, _, value = pair.partition("=")
        if is_credential_param(unquote_plus(name)):
            found += [value, unquote(value), unquote_plus(value)]  # `_mask` finds each in any percent-encoding
    for value in found:
        register_secret(value)


def basic_token(user: str, password: str) -> str:
    """The token of an `Authorization: Basic` header for a user name and password."""
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def _split(url: str) -> tuple[str, str | None, str, str, str | None, str | None]:
    """(scheme with "://", userinfo or None, host[:port], path, query or None, fragment or None), as written (the
    authority ends at the first "/", "?" or "#", as RFC 3986 reads it)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    userinfo, at, host = rest[:end].rpartition("@")
    rest, hashmark, fragment = rest[end:].partition("#")
    path, qmark, query = rest.partition("?")
    return (
        scheme + sep,
        (userinfo if at else None),
        host,
        path,
        (query if qmark else None),
        (fragment if hashmark else None),
    )


def _mask_params(text: str) -> str:
    """Each `name=value` pair (split at `&`, and at `;` as some servers do) with its value masked unless harmless."""
    pairs = _PAIR_SEPARATOR.split(text)
    for i, pair in enumerate(pairs):
        name, equals, value = pair.partition("=")
        if equals and value and is_credential_param(unquote_plus(name)):
            pairs[i] = f"{name}={MASK}"
    return "".join(pairs)


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
    # a secret may be there percent-encoded (an endpoint echoing the URL it was sent): only then is it looked for
    if secrets and ("%" in text or "+" in text):
        text = _encoded(tuple(secrets)).sub(MASK, text)
    return text


@functools.lru_cache(maxsize=16)  # the known secrets change seldom: one pattern per set of them
def _encoded(secrets: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern of every secret in any percent-encoding, whole or partial: each character as written, as its UTF-8
    bytes percent-encoded once or twice (`/` as `%2F`, `%2f`, `%252F`), a space also as `+` (quote, quote_plus and
    double quoting of a secret, and any mix of them)."""
    return re.compile("|".join(_any_encoding(secret) for secret in secrets) or r"(?!)")


def _any_encoding(secret: str) -> str:
    parts = []
    for char in secret:
        hexes = ("".join(f"[{d}{d.lower()}]" if d.isalpha() else d for d in f"{byte:02X}") for byte in char.encode())
        forms = [re.escape(char), "".join(f"%(?:25)?{pair}" for pair in hexes), *([r"\+"] if char == " " else [])]
        parts.append(f"(?:{'|'.join(forms)})")
    return "".join(parts)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in _strings(item)]
    return []
