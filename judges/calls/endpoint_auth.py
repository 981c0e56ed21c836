"""How the credentials written into a judge's `--api-base` are sent: the userinfo as a header, never in the URL.

The rule, for every client: an Authorization header given in the extra headers is sent as given; else an API key
(given with `--extra api_key`, or the provider's key variable such as OPENAI_API_KEY) is sent as
`Authorization: Bearer KEY`; else the URL's `user:password@` is sent as `Authorization: Basic ...`. The userinfo is
never part of the URL requested (it is dropped when a key or header wins). Query parameters (`?key=...`, as some
gateways want) stay in the URL requested. All of it is registered as secrets and never recorded (`mask_url`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

from judges.secrets import basic_token, mask_url, register_url_secrets, split_userinfo


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
