"""Embeddings kept across runs in the reply cache's SQLite file: a second pass over the same texts embeds nothing."""

import asyncio
import sqlite3

import numpy as np

from judges.calls.cache import CacheMode, EmbeddingCache, ReplyCache
from judges.rag.embeddings import ScriptedEmbedder, open_embedder


def vector(text):
    return [float(len(text)), float(text.count(" ")), 1.0]


def test_a_second_evaluation_of_the_same_documents_embeds_nothing(tmp_path):
    path = tmp_path / "cache.sqlite"
    ReplyCache(path).close()  # the replies' file: the vectors go into a table beside them
    texts = ["The Danube flows through Vienna.", "Copper's symbol is Cu.", "The Danube flows through Vienna."]
    first = ScriptedEmbedder(vector, store=EmbeddingCache(path))
    rows = asyncio.run(first.embed(texts))
    assert first.calls == [["The Danube flows through Vienna.", "Copper's symbol is Cu."]]
    second = ScriptedEmbedder(vector, store=EmbeddingCache(path))  # a new run: nothing in memory
    again = asyncio.run(second.embed(texts))
    assert second.calls == [] and np.array_equal(rows, again)
    third = ScriptedEmbedder(vector, store=EmbeddingCache(path))
    asyncio.run(third.embed(["Copper's symbol is Cu.", "A new text."]))
    assert third.calls == [["A new text."]]  # only what is new
    with sqlite3.connect(path) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"replies", "embeddings"} <= tables
        assert db.execute("SELECT COUNT(*) FROM embeddings").fetchone() == (3,)


def test_vectors_are_kept_per_model_and_a_read_only_cache_writes_nothing(tmp_path):
    path = tmp_path / "cache.sqlite"
    store = EmbeddingCache(path)
    store.put_many("model-a", ["x"], np.array([[1.0, 2.0]], dtype=np.float32))
    assert store.get_many("model-b", ["x"]) == {}
    assert store.get_many("model-a", ["x"])["x"].tolist() == [1.0, 2.0]
    reader = EmbeddingCache(path, CacheMode.READ_ONLY)
    reader.put_many("model-a", ["y"], np.array([[3.0, 4.0]], dtype=np.float32))
    assert reader.get_many("model-a", ["y"]) == {} and list(reader.get_many("model-a", ["x"])) == ["x"]


def test_open_embedder_attaches_the_cache_file(tmp_path):
    embedder = open_embedder(
        "openai/text-embedding-3-small", api_base="http://127.0.0.1:9/v1", cache_path=tmp_path / "c.sqlite"
    )
    assert embedder.store is not None and embedder.store.path == tmp_path / "c.sqlite"
    assert open_embedder("openai/text-embedding-3-small").store is None
