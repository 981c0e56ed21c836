"""The lean backend: chat completions for OpenAI-compatible endpoints over one pooled aiohttp session."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import TYPE_CHECKING, Any

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.calls.endpoint_auth import endpoint_auth
from judges.calls.prices import call_cost, price_table
from judges.secrets import mask_url, register_secret, register_secrets_in, scrub_text
from judges.types import FailureKind

if TYPE_CHECKING:
    import aiohttp

OPENAI_BASE = "https://api.openai.com/v1"
# Prefixes LiteLLM strips before sending a model id to an OpenAI-compatible server.
OPENAI_COMPATIBLE = ("openai", "hosted_vllm", "custom_openai")
# LiteLLM's own arguments, meaningless to a server: never sent on.
_LITELLM_ONLY = {"drop_params", "num_retries", "metadata", "caching", "mock_response", "custom_llm_provider"}
CONNECTION_ONLY = {"api_key", "api_base", "base_url", "extra_headers", "headers"}
_STATUS_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "Timeout",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
    503: "ServiceUnavailableError",
}


def wire_model(model: str) -> str:
    """The model id the server is sent: `openai/gpt-4o-mini` -> `gpt-4o-mini`, a bare id unchanged."""
    prefix, _, rest = model.partition("/")
    return rest if rest and prefix in OPENAI_COMPATIBLE else model


def http_error(status: int, body: bytes, headers: Any = None) -> CallError:
    """A CallError for an HTTP error reply: the same kinds, retry decisions and endpoint problems as classify()."""
    detail = _error_message(body)
    name = _STATUS_NAMES.get(status, "InternalServerError" if status >= 500 else "APIError")
    message = _clean(f"{name}: HTTP {status}: {detail}")
    if status in (401, 403):
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="auth")
    if status == 404:
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="not_found")
    if status == 408:
        return CallError(FailureKind.TIMEOUT, message, retryable=True)
    if status == 400 and any(word in detail.lower() for word in ("content_policy", "content_filter", "safety system")):
        return CallError(FailureKind.REFUSED, message)
    retryable = status == 429 or status >= 500
    return CallError(FailureKind.API_ERROR, message, retryable=retryable, retry_after=_retry_after(headers))


def transport_error(err: BaseException) -> CallError:
    """A CallError for a request that got no whole HTTP reply: a timeout, no connection (refused, DNS, reset), or a
    body cut off mid-way (retried, but not taken for an endpoint that cannot be reached)."""
    import aiohttp

    if isinstance(err, (TimeoutError, aiohttp.ServerTimeoutError)):
        return CallError(FailureKind.TIMEOUT, _clean(f"Timeout: no reply ({type(err).__name__})"), retryable=True)
    if isinstance(err, aiohttp.ClientPayloadError):  # the server answered, then the body broke off: not a dead host
        return CallError(FailureKind.API_ERROR, _clean(f"APIError: the reply was cut off: {err}"), retryable=True)
    reason = str(err) or type(err).__name__
    return CallError(
        FailureKind.API_ERROR,
        _clean(f"APIConnectionError: Connection error: {reason}"),
        retryable=True,
        endpoint_problem="connection",
    )


def _clean(message: str) -> str:
    # secrets are masked before the cut, so that half a key never survives it
    return scrub_text(message.splitlines()[0] if message else "")[:300]


def _error_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()[:500] or "no message"
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error.get("code") or error)
    return str(error)


def _retry_after(headers: Any) -> float | None:
    value = headers.get("retry-after") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def to_completion(data: dict[str, Any], model: str, latency_s: float) -> Completion:
    """A chat-completion reply as a Completion: text, tokens, price (LiteLLM's table), logprobs, fingerprint."""
    try:
        choice = data["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise CallError(FailureKind.API_ERROR, "APIError: the reply holds no choices", retryable=True) from None
    usage = data.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    top = None
    content = (choice.get("logprobs") or {}).get("content")
    if content:
        top = [{alt["token"]: alt["logprob"] for alt in (item.get("top_logprobs") or [])} for item in content]
    served = data.get("model")
    return Completion(
        text=(choice.get("message") or {}).get("content") or "",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=call_cost([model, str(served or "")], prompt_tokens, completion_tokens),
        model_version=data.get("system_fingerprint") or served,
        served_model=str(served) if served else None,
        system_fingerprint=str(data["system_fingerprint"]) if data.get("system_fingerprint") else None,
        finish_reason=choice.get("finish_reason"),
        top_logprobs=top,
        latency_s=latency_s,
    )


class OpenAIHTTPBackend:
    """POSTs to `{api_base}/chat/completions` through one pooled session per event loop; the key and extra
    headers are sent, never cached or logged."""

    def __init__(
        self,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,  # None: no limit of its own (the runtime times each call out)
        connection: dict[str, Any] | None = None,
    ) -> None:
        connection = dict(connection or {})
        key = connection.get("api_key") or api_key or os.environ.get("OPENAI_API_KEY")
        base = api_base or connection.get("api_base") or os.environ.get("OPENAI_BASE_URL")
        self._headers = {"Content-Type": "application/json"}
        if key and key != "none":
            self._headers["Authorization"] = f"Bearer {key}"
        for name in ("extra_headers", "headers"):
            self._headers.update({str(k): str(v) for k, v in (connection.get(name) or {}).items()})
        # the URL's user:password@ goes in a header (see endpoint_auth); its query stays in every URL requested
        base = base or os.environ.get("OPENAI_API_BASE") or OPENAI_BASE
        url, basic = endpoint_auth(base, self._headers, keyed=bool(key and key != "none"))
        self._headers.update(basic)
        path, _, query = url.partition("#")[0].partition("?")
        self._base, self._query = path.rstrip("/"), query
        self.api_base = mask_url(self._base + (f"?{query}" if query else ""))  # as it may be shown
        self._url = self.url("/chat/completions")
        self._body_secrets = {k: v for k, v in connection.items() if k not in CONNECTION_ONLY}
        register_secret(key)
        register_secrets_in(connection)
        for value in self._headers.values():
            register_secret(value.removeprefix("Bearer ").removeprefix("Basic "))
        self._timeout_s = timeout_s
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def url(self, path: str) -> str:
        """The URL of an endpoint `path` (`/chat/completions`, `/files`) at the API base, with the base's query."""
        return self._base + path + (f"?{self._query}" if self._query else "")

    def _open_session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            self.close()  # a session of an earlier, finished event loop
            import aiohttp

            price_table()  # read now, before the first request: on the first reply it held up the C replies beside it

            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300, enable_cleanup_closed=False)
            timeout = aiohttp.ClientTimeout(total=self._timeout_s)
            self._session = aiohttp.ClientSession(connector=connector, timeout=timeout, headers=self._headers)
            self._loop = loop
        return self._session

    def session(self) -> aiohttp.ClientSession:
        """The pooled session with the endpoint's key and headers (the batch executor's files and batches calls)."""
        return self._open_session()

    def body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body of the request: model, messages, parameters, extras (extra_body merged in, as the OpenAI
        client does), and the credential fields that belong in the body."""
        params = dict(request.params)
        extra = dict(params.pop("extra", None) or {})
        body: dict[str, Any] = {"model": wire_model(request.model), "messages": list(request.messages), **params}
        for source in (extra, self._body_secrets):
            for key, value in source.items():
                if key == "extra_body" and isinstance(value, dict):
                    body.update(value)
                elif key not in _LITELLM_ONLY and key not in CONNECTION_ONLY:
                    body[key] = value
        return body

    async def complete(self, request: CompletionRequest) -> Completion:
        import aiohttp

        session = self._open_session()
        body = self.body(request)
        started = time.perf_counter()
        for _attempt in range(2):  # a model that rejects temperature (reasoning models) is asked again without it
            try:
                async with session.post(self._url, data=json.dumps(body, ensure_ascii=False).encode()) as response:
                    payload = await response.read()
                    status, headers = response.status, response.headers
            except (aiohttp.ClientError, TimeoutError, OSError) as err:
                raise transport_error(err) from None
            if status < 400:
                break
            error = http_error(status, payload, headers)
            if status == 400 and "temperature" in str(error) and "temperature" in body:
                body.pop("temperature")
                continue
            raise error
        else:
            raise CallError(FailureKind.API_ERROR, "the model rejected the call's parameters")
        try:
            data = json.loads(payload)
        except ValueError:
            raise CallError(FailureKind.API_ERROR, "APIError: the reply is not JSON", retryable=True) from None
        if not isinstance(data, dict):
            raise CallError(FailureKind.API_ERROR, "APIError: the reply is not a JSON object", retryable=True)
        return to_completion(data, request.model, time.perf_counter() - started)

    async def aclose(self) -> None:
        """Close the pooled session (a later call opens a new one)."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = self._loop = None

    def close(self) -> None:
        """Close the session without a running loop (its loop has ended): its connections are dropped."""
        if self._session is not None and not self._session.closed:
            connector = self._session.connector
            if connector is not None:
                connector._close()  # the synchronous part of close(); the loop that would await it is gone
        self._session = self._loop = None
