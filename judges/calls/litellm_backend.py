"""The LiteLLM backend: any model id LiteLLM knows, imported lazily, errors mapped to failure kinds."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from judges.calls.backend import CallError, Completion, CompletionRequest
from judges.calls.endpoint_auth import litellm_endpoint
from judges.calls.openai_http import OPENAI_COMPATIBLE
from judges.calls.prices import provider
from judges.errors import ConfigError
from judges.secrets import register_secret, register_secrets_in, scrub_text
from judges.types import FailureKind


def import_litellm() -> Any:
    """Import LiteLLM on first use, with its price map read from the package, never fetched."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import warnings

    import litellm

    # LiteLLM's response objects trip pydantic's serializer warnings on every call; they are noise.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


def _retry_after(err: Exception) -> float | None:
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _connection_failed(litellm: Any, err: Exception) -> bool:
    """No connection could be made (refused, DNS, reset): LiteLLM reports it as APIConnectionError or, for
    OpenAI-compatible servers, as an InternalServerError whose cause is the client's connection error."""
    import openai

    if isinstance(err, litellm.Timeout):
        return False
    chain: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and len(chain) < 5:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return any(
        isinstance(e, (litellm.APIConnectionError, openai.APIConnectionError))
        and not isinstance(e, (litellm.Timeout, openai.APITimeoutError))
        for e in chain
    ) or "Connection error" in str(err)


def classify(err: Exception) -> CallError:
    """Map a LiteLLM / OpenAI exception to a CallError with a failure kind and a retry decision."""
    litellm = import_litellm()
    # secrets are masked before the cut, so that half a key never survives it
    message = scrub_text(f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")[:300]
    if isinstance(err, litellm.Timeout):
        return CallError(FailureKind.TIMEOUT, message, retryable=True)
    if isinstance(err, litellm.ContentPolicyViolationError):
        return CallError(FailureKind.REFUSED, message)
    if isinstance(err, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="auth")
    if isinstance(err, litellm.NotFoundError):
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="not_found")
    if _connection_failed(litellm, err):
        return CallError(FailureKind.API_ERROR, message, retryable=True, endpoint_problem="connection")
    if isinstance(err, (litellm.RateLimitError, litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return CallError(FailureKind.API_ERROR, message, retryable=True, retry_after=_retry_after(err))
    status = getattr(err, "status_code", None)
    if status in (401, 403):  # an OpenAI-compatible server's 403 comes as a plain APIError
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="auth")
    if status == 404:
        return CallError(FailureKind.API_ERROR, message, endpoint_problem="not_found")
    retryable = isinstance(status, int) and (status == 429 or status >= 500)
    return CallError(FailureKind.API_ERROR, message, retryable=retryable, retry_after=_retry_after(err))


class LiteLLMBackend:
    """Calls `litellm.acompletion`; fixed connection settings (api_base, api_key) are never cached or logged."""

    def __init__(
        self,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,  # None: no limit of its own (the runtime times each call out)
        connection: dict[str, Any] | None = None,
    ) -> None:
        given = {k: v for k, v in (("api_base", api_base), ("api_key", api_key)) if v is not None}
        given.update(connection or {})
        register_secret(api_key)
        register_secrets_in(given)
        # the URL's userinfo as a header (endpoint_auth); its query kept by an OpenAI client of this backend's own
        self._connection, self._query = litellm_endpoint(given)
        for value in (self._connection.get("extra_headers") or {}).values():
            register_secret(str(value).removeprefix("Basic "))
        self._timeout_s = timeout_s
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    async def complete(self, request: CompletionRequest) -> Completion:
        litellm = import_litellm()
        params = dict(request.params)
        extra = merge_nested(params.pop("extra", None) or {}, self._connection)
        if self._query:
            extra["client"] = self._query_client(request.model)
        started = time.perf_counter()
        for _attempt in range(3):  # drop parameters a model rejects, then try again
            try:
                response = await litellm.acompletion(
                    model=request.model,
                    messages=list(request.messages),
                    drop_params=True,
                    timeout=self._timeout_s,
                    num_retries=0,
                    **params,
                    **extra,
                )
                break
            except litellm.UnsupportedParamsError as err:
                rejected = [name for name in params if name in str(err)]
                if not rejected:
                    raise classify(err) from None
                for name in rejected:
                    params.pop(name)
            except Exception as err:  # every provider error becomes a CallError with a kind
                if isinstance(err, litellm.BadRequestError) and "temperature" in str(err) and "temperature" in params:
                    params.pop("temperature")
                    continue
                raise classify(err) from None
        else:
            raise CallError(FailureKind.API_ERROR, "the model rejected the call's parameters")
        return _to_completion(litellm, response, time.perf_counter() - started)

    def _query_client(self, model: str) -> Any:
        """An OpenAI client (of this event loop) that adds the API base's query to every URL it requests."""
        if provider(model) not in OPENAI_COMPATIBLE:
            raise ConfigError(
                f"--client litellm cannot keep the query of --api-base for {model} (only for OpenAI-compatible "
                "models); put the key in a header with --extra '{\"extra_headers\": {...}}'"
            )
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            import openai  # defers openai

            key = self._connection.get("api_key") or os.environ.get("OPENAI_API_KEY") or "none"
            base = self._connection["api_base"]
            self._client = openai.AsyncOpenAI(
                api_key=key, base_url=base, default_query=dict(self._query), max_retries=0
            )
            self._client_loop = loop
        return self._client


def merge_nested(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """`base` with `more` merged in, nested dicts merged key by key (credentials split out of --extra go back in)."""
    merged = dict(base)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_nested(merged[key], value)
        else:
            merged[key] = value
    return merged


def _to_completion(litellm: Any, response: Any, latency_s: float) -> Completion:
    choice = response.choices[0]
    usage = getattr(response, "usage", None)
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")  # LiteLLM prices each reply as it arrives (None: it knows no price)
    if "response_cost" not in hidden:  # an older reply shape: price it here
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown model (a local server): no price known
            cost = 0.0
    cost = float(cost or 0.0)
    top = None
    logprobs = getattr(choice, "logprobs", None)
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if content:
        top = [{alt.token: alt.logprob for alt in (item.top_logprobs or [])} for item in content]
    return Completion(
        text=choice.message.content or "",
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost=cost,
        model_version=getattr(response, "system_fingerprint", None) or getattr(response, "model", None),
        served_model=getattr(response, "model", None) or None,
        system_fingerprint=getattr(response, "system_fingerprint", None) or None,
        finish_reason=getattr(choice, "finish_reason", None),
        top_logprobs=top,
        latency_s=latency_s,
    )
