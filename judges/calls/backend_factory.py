"""Opens the backend that reaches a judge model: the lean HTTP client or LiteLLM, one endpoint or several, and the
local llama.cpp server when the model is local."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from judges.calls.api_keys import check_key, missing_keys
from judges.calls.backend import Backend
from judges.calls.deferred import DeferredBackend
from judges.calls.deployments import DeploymentRouter
from judges.calls.local_server import LlamaServer, check_installed, smollm2_path
from judges.calls.model_spec import JudgeModel
from judges.calls.openai_http import OPENAI_COMPATIBLE
from judges.calls.prices import provider
from judges.plugins import load, make, names, wrong_type


def default_client(model: JudgeModel) -> str:
    """ "lean" for local judges and OpenAI-compatible endpoints (OpenAI, or openai/... at any --api-base), else
    "litellm"."""

    return "lean" if model.local or provider(model.litellm_model) in OPENAI_COMPATIBLE else "litellm"


def _client_backend(client: str, api_base: str | None, timeout_s: float, connection: dict[str, Any]) -> Backend:
    """The backend `client` names in `judgelab.backends`: a callable `(api_base=, timeout_s=, connection=)`."""
    opener = load("backends", client, what="client")
    backend = make("backends", client, opener, api_base=api_base, timeout_s=timeout_s, connection=connection)
    if not isinstance(backend, Backend):
        raise wrong_type("backends", client, backend, "a Backend (judges.calls.backend)", "returns")
    return backend


@contextlib.contextmanager
def open_backend(
    model: JudgeModel,
    *,
    timeout_s: float,
    connection: dict[str, Any] | None = None,
    client: str | None = None,
    api_bases: Sequence[str] = (),
    per_deployment: int,
    replay: bool = False,
) -> Iterator[Backend]:
    """The backend for `model` (the lean one or LiteLLM's, see `default_client`), with the local llama.cpp server
    started on the first call that needs it and stopped afterwards. Several `api_bases` are deployments of one
    judge: calls are spread over them, at most `per_deployment` at once on each.

    `connection` holds credential-like arguments (api_key, extra headers): sent, never cached or logged. `replay`:
    the run answers from recorded replies only and calls nothing, so no API key is needed.
    Nothing heavy is imported and nothing is started here: a fully cached run never needs it.
    """

    client = client or default_client(model)
    if client not in names("backends"):
        load("backends", client, what="client")  # the one-line error, with "did you mean"
    backend: Any
    if model.local:
        check_installed()
        server = LlamaServer(smollm2_path())

        def start() -> Backend:
            server.start()
            server.wait_ready()
            return _client_backend(client, server.api_base, timeout_s, {"api_key": "none"})

        backend = DeferredBackend(start)
        try:
            yield backend
        finally:
            backend.close()
            server.stop()
        return
    connection = dict(connection or {})
    check_key(model, connection, replay=replay)
    if not connection.get("api_key") and model.api_base and client == "litellm" and missing_keys(model):
        connection["api_key"] = "none"  # a self-hosted server (vLLM, llama.cpp, Ollama) needs no key
    bases: list[str | None] = [*api_bases] or [model.api_base]
    if len(bases) == 1:
        backend = _client_backend(client, bases[0], timeout_s, connection)
    else:
        backend = DeploymentRouter(
            [(str(base), _client_backend(client, base, timeout_s, connection)) for base in bases],
            per_deployment,
        )
    try:
        yield backend
    finally:
        closer = getattr(backend, "close", None)
        if closer is not None:
            closer()
