"""The provider's files and batches endpoints: OpenAI-compatible ones over the lean client's session, others
through LiteLLM's batch functions (imported only then)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from judges.calls.backend import CallError
from judges.calls.litellm_backend import import_litellm
from judges.calls.openai_http import OpenAIHTTPBackend, http_error, transport_error
from judges.secrets import register_url_secrets

COMPLETION_WINDOW = "24h"


class BatchAPI(Protocol):
    async def upload(self, path: Path) -> str: ...

    async def create(self, file_id: str, endpoint: str) -> dict[str, Any]: ...

    async def retrieve(self, batch_id: str) -> dict[str, Any]: ...

    async def find(self, file_id: str) -> dict[str, Any] | None:
        """The batch already made from this input file, if the provider lists one."""
        ...

    async def content(self, file_id: str) -> bytes: ...

    async def aclose(self) -> None: ...


class OpenAIBatchAPI:
    """`/files` (multipart, purpose=batch), `/batches` and `/files/{id}/content` at the judge's api base."""

    def __init__(self, client: OpenAIHTTPBackend) -> None:
        self.client = client

    async def _send(self, method: str, path: str, **kwargs: Any) -> bytes:
        import aiohttp

        try:
            async with self.client.session().request(method, self.client.url(path), **kwargs) as response:
                payload = await response.read()
                if response.status >= 400:
                    raise http_error(response.status, payload, response.headers)
                return payload
        except (aiohttp.ClientError, TimeoutError, OSError) as err:
            raise transport_error(err) from None

    async def upload(self, path: Path) -> str:
        import aiohttp

        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", path.read_bytes(), filename=path.name, content_type="application/jsonl")
        body = form()
        reply = await self._send("POST", "/files", data=body, headers={"Content-Type": body.content_type})
        return str(json.loads(reply)["id"])

    async def create(self, file_id: str, endpoint: str) -> dict[str, Any]:
        request = {"input_file_id": file_id, "endpoint": endpoint, "completion_window": COMPLETION_WINDOW}
        return dict(json.loads(await self._send("POST", "/batches", data=json.dumps(request))))

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        return dict(json.loads(await self._send("GET", f"/batches/{batch_id}")))

    async def find(self, file_id: str) -> dict[str, Any] | None:
        try:
            listed = json.loads(await self._send("GET", "/batches", params={"limit": "100"}))
        except CallError:
            return None
        return next((b for b in listed.get("data", []) if b.get("input_file_id") == file_id), None)

    async def content(self, file_id: str) -> bytes:
        return await self._send("GET", f"/files/{file_id}/content")

    async def aclose(self) -> None:
        await self.client.aclose()


class LiteLLMBatchAPI:
    """The same calls through LiteLLM's `acreate_file`, `acreate_batch`, `aretrieve_batch`, `afile_content`."""

    def __init__(self, provider: str, connection: dict[str, Any], api_base: str | None) -> None:
        self.provider = provider
        self.kwargs = {**connection, **({"api_base": api_base} if api_base else {})}
        register_url_secrets(api_base)  # its credentials are masked in any error the calls report

    async def upload(self, path: Path) -> str:
        with path.open("rb") as handle:
            made = await import_litellm().acreate_file(
                file=handle, purpose="batch", custom_llm_provider=self.provider, **self.kwargs
            )
        return str(made.id)

    async def create(self, file_id: str, endpoint: str) -> dict[str, Any]:
        made = await import_litellm().acreate_batch(
            completion_window=COMPLETION_WINDOW,
            endpoint=endpoint,
            input_file_id=file_id,
            custom_llm_provider=self.provider,
            **self.kwargs,
        )
        return dict(made.model_dump())

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        got = await import_litellm().aretrieve_batch(
            batch_id=batch_id, custom_llm_provider=self.provider, **self.kwargs
        )
        return dict(got.model_dump())

    async def find(self, file_id: str) -> dict[str, Any] | None:
        return None  # not every provider lists batches: the input file is made into a batch again

    async def content(self, file_id: str) -> bytes:
        got = await import_litellm().afile_content(file_id=file_id, custom_llm_provider=self.provider, **self.kwargs)
        return bytes(got.content)

    async def aclose(self) -> None:
        return None
