"""How the credentials written into a judge's `--api-base` are sent: the userinfo as a header, never in the URL.

The rule, for every client: an Authorization header given in the extra headers is sent as given; else an API key
(given with `--extra api_key`, or the provider's key variable such as OPENAI_API_KEY) is sent as
`Authorization: Bearer KEY`; else the URL's `user:password@` is sent as `Authorization: Basic ...`. The userinfo is
never part of the URL requested (it is dropped when a key or header wins). Query parameters (`?key=...`, as some
gateways want) stay in the URL requested. All of it is registered as secrets and never recorded (`mask_url`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from judges.secrets import basic_token, is_credential_param, mask_url, register_url_secrets, split_userinfo

HEADER_FIELDS = ("extra_headers", "headers")  # where `--extra` gives HTTP headers
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a header name (RFC 9110's token)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # in a header value: any control character but the tab


def check_url(url: str) -> str:
    """`url` when it is usable as an API base; else a ValueError naming its problem and the URL masked."""
    problem = url_problem(url)
    if problem:
        raise ValueError(f"{problem}: {mask_url(url)!r}")
    return url


def check_headers(extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` when its headers can be sent; else a ValueError naming the problem (`header_problem`)."""
    problem = header_problem(extra)
    if problem:
        raise ValueError(problem)
    return extra


def url_problem(url: str) -> str | None:
    """What makes `url` unusable as an API base (no http(s) scheme, no host, a bad port, a space or control
    character, an unclosed IPv6 bracket), or None; the URL itself is never named (it may hold credentials)."""
    if any(char.isspace() or not char.isprintable() for char in url):
        return "holds a space or a control character"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as err:  # an unclosed [IPv6] bracket, a port out of range or not a number
        return f"is not a URL ({err})"
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "needs to start with http:// or https:// and a host, e.g. http://localhost:8000/v1"
    if not parts.hostname:
        return "has no host"
    if port == 0:
        return "has port 0"
    return None


def header_problem(extra: Mapping[str, Any]) -> str | None:
    """What makes a header of `extra` (`extra_headers`, `headers`) unsendable: a name that is not a token, a value
    that is not text or holds a CR, LF or other control character (a header split in two); or None. The value
    itself is never named (it may be a credential)."""
    for field in HEADER_FIELDS:
        headers = extra.get(field)
        if headers is None:
            continue
        if not isinstance(headers, Mapping):
            return f"{field} must be a JSON object of header names and values"
        for name, value in headers.items():
            if not isinstance(name, str) or not _TOKEN.fullmatch(name):
                return f"{field} has a header name that is not one word of letters, digits and -_. ({name!r:.40})"
            if not isinstance(value, str):
                return f"{field}.{name} must be a text"
            if _CONTROL.search(value):
                return f"{field}.{name} holds a line break or another control character; a header is one line"
    return None


def cache_endpoint(api_bases: list[str]) -> str:
    """The endpoint as the reply cache keys it: each API base without its userinfo, its fragment and every query
    parameter that may carry a credential (those not on `HARMLESS_PARAMS`), scheme and host in lower case, no
    trailing slash; "" for the provider's own endpoint (no API base), which keys as caches written before did."""
    shown = []
    for base in api_bases:
        url = split_userinfo(base.strip())[0].partition("#")[0]
        url, _, query = url.partition("?")
        scheme, sep, rest = url.partition("://")
        host, slash, path = rest.partition("/")
        pairs = re.split("[&;]", query)
        kept = [pair for pair in pairs if pair and not is_credential_param(unquote_plus(pair.split("=")[0]))]
        url = scheme.lower() + sep + host.lower() + (slash + path).rstrip("/")
        shown.append(url + ("?" + "&".join(kept) if kept else ""))
    return " ".join(sorted(set(shown)))


def endpoint_name(api_bases: list[str], local: bool) -> str:
    """The judge's endpoint as a line about it names it: its API bases (masked), or who serves it."""
    return ", ".join(mask_url(url) for url in api_bases) or (
        "a local llama.cpp server" if local else "the provider's API"
    )


def has_authorization(headers: Mapping[str, object]) -> bool:
    """Whether `headers` hold an Authorization header (any spelling of its name)."""
    return any(str(name).lower() == "authorization" for name in headers)


def endpoint_auth(api_base: str, headers: Mapping[str, str], keyed: bool) -> tuple[str, dict[str, str]]:
    """(the URL to request: `api_base` without its userinfo; the headers to add to `headers`: an `Authorization:
    Basic` header from the userinfo when neither a key (`keyed`) nor an Authorization header is given)."""
    register_url_secrets(api_base)
    url, userinfo = split_userinfo(api_base)
    if userinfo is None or keyed or has_authorization(headers):
        return url, {}
    return url, {"Authorization": "Basic " + basic_token(*userinfo)}


def litellm_endpoint(connection: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """(`connection` as LiteLLM is given it, the `api_base` query's parameters): `api_base` without its userinfo
    (sent as a Basic header in `extra_headers` by the rule above) and without its query, which LiteLLM's clients
    cannot keep (they append the path to the URL). There is a key unless `api_key` is "none": the backend factory's
    word for no key anywhere; absent, LiteLLM reads the provider's key variable, which the factory found set."""
    base = connection.get("api_base")
    if not isinstance(base, str) or not base:
        return dict(connection), []
    given = {**(connection.get("headers") or {}), **(connection.get("extra_headers") or {})}
    url, basic = endpoint_auth(base, given, keyed=connection.get("api_key") != "none")
    path, _, query = url.partition("#")[0].partition("?")
    changed = {**connection, "api_base": path}
    if basic:
        changed["extra_headers"] = {**(connection.get("extra_headers") or {}), **basic}
    return changed, parse_qsl(query, keep_blank_values=True)
