"""A durable SQLite (WAL) cache of judge replies (by model, messages, parameters) and of embeddings (by model, text)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from judges.calls.backend import Completion, CompletionRequest
from judges.errors import CacheBroken, ConfigError
from judges.secrets import scrub

if TYPE_CHECKING:
    import numpy as np


class CacheMode(str, Enum):
    READ_WRITE = "read-write"
    READ_ONLY = "read-only"
    OFF = "off"
    REPLAY = "replay"  # a miss is an error: CI runs judges from recorded replies

    @classmethod
    def parse(cls, text: str) -> CacheMode:
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(
                f"unknown cache mode {text!r}; expected one of {', '.join(m.value for m in cls)}"
            ) from None


_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    created REAL NOT NULL
)"""


_FIX = "give another --cache PATH, run with --cache-mode off, or delete the file"


def quick_check(db: sqlite3.Connection, path: Path) -> None:
    """SQLite's `PRAGMA quick_check` over the whole file: a page overwritten anywhere (not only the header) is
    refused before any call, instead of failing the run at the first damaged row."""
    problems = [str(row[0]) for row in db.execute("PRAGMA quick_check(1)")]
    if problems != ["ok"]:
        first = " ".join(problems[0].replace("*** in database main ***", "").split())
        raise ConfigError(f"cache {path} is damaged ({first[:120]}): {_FIX}")


def broken(path: Path, err: sqlite3.Error) -> CacheBroken:
    """A read or write that failed mid-run: the run stops, named, keeping every finished item."""
    return CacheBroken(f"cache {path} failed mid-run ({err}); finished items are kept: {_FIX}")


def open_cache_file(
    path: Path, mode: CacheMode, schema: str, check: Callable[[sqlite3.Connection], None] | None = None
) -> sqlite3.Connection | None:
    """The cache file's connection in WAL mode with `schema`'s table made; None when the cache is off."""
    if mode is CacheMode.OFF:
        return None
    if mode is CacheMode.READ_WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.is_file():
        raise ConfigError(f"cache {path} does not exist (mode {mode.value})")
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    try:
        if path.is_file() and path.stat().st_size:
            quick_check(db, path)
        if check is not None:
            check(db)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(schema)
    except BaseException:
        db.close()
        raise
    return db


class ReplyCache:
    """Stores only the request's hash, the model id and the reply: never messages' secrets or headers. The hash
    holds `endpoint` (`endpoint_auth.cache_endpoint`: "" for the provider's own API, as before it was keyed)."""

    def __init__(self, path: str | Path, mode: CacheMode = CacheMode.READ_WRITE, endpoint: str = "") -> None:
        self.mode = mode
        self.path = Path(path)
        self.endpoint = endpoint
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            self._db = open_cache_file(self.path, mode, _SCHEMA, check=self._check_schema)
        except sqlite3.Error as err:
            self.close()
            raise ConfigError(f"cache {self.path} cannot be used ({err}): {_FIX}") from None

    def _check_schema(self, db: sqlite3.Connection) -> None:
        """A file that holds other tables, or a `replies` table of another shape, is not judgelab's cache."""
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = {row[1] for row in db.execute("PRAGMA table_info(replies)")}
        ours = {"replies", "embeddings"}  # the reply cache, and the embedding cache that shares its file
        if tables and (not tables <= ours or ("replies" in tables and columns != {"key", "model", "reply", "created"})):
            self.close()
            raise ConfigError(
                f"cache {self.path} is an SQLite file but not a judgelab reply cache (tables: "
                f"{', '.join(sorted(tables))}): {_FIX}"
            )

    def get(self, request: CompletionRequest) -> Completion | None:
        if self._db is None:
            return None
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT reply FROM replies WHERE key = ?", (request.cache_key(self.endpoint),)
                ).fetchone()
        except sqlite3.DatabaseError as err:
            raise broken(self.path, err) from None
        if not row:
            return None
        try:
            return Completion.from_dict(json.loads(row[0]))
        except (ValueError, KeyError, TypeError):  # a damaged row is a miss: the call is made again
            return None

    def put(self, request: CompletionRequest, completion: Completion) -> None:
        """Write the reply at once (autocommit), so a killed run keeps every finished call."""
        if self._db is None or self.mode is not CacheMode.READ_WRITE:
            return
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO replies (key, model, reply, created) VALUES (?, ?, ?, ?)",
                    (
                        request.cache_key(self.endpoint),
                        request.model,
                        json.dumps(scrub(completion.to_dict())),
                        time.time(),
                    ),
                )
        except sqlite3.DatabaseError as err:
            raise broken(self.path, err) from None

    def forget(self, request: CompletionRequest) -> None:
        """Drop one stored reply (an unusable one), so the next run asks again."""
        if self._db is None or self.mode is not CacheMode.READ_WRITE:
            return
        try:
            with self._lock:
                self._db.execute("DELETE FROM replies WHERE key = ?", (request.cache_key(self.endpoint),))
        except sqlite3.DatabaseError as err:
            raise broken(self.path, err) from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


_EMBEDDINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (model, text_sha256)
)"""


class EmbeddingCache:
    """Embedding vectors in the same SQLite file as the replies (its own table), keyed by model and the text's
    SHA-256: a second evaluation of the same documents embeds nothing again. Stores no text."""

    def __init__(self, path: str | Path, mode: CacheMode = CacheMode.READ_WRITE) -> None:
        self.mode = mode
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db: sqlite3.Connection | None = open_cache_file(self.path, mode, _EMBEDDINGS_SCHEMA)
        except sqlite3.Error as err:
            raise ConfigError(f"cache {self.path} cannot be used ({err}): {_FIX}") from None

    @staticmethod
    def key(text: str) -> str:
        import hashlib

        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get_many(self, model: str, texts: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those texts that have one (float32 rows)."""
        import numpy as np

        if self._db is None or not texts:
            return {}
        keys = {self.key(t): t for t in texts}
        found: dict[str, np.ndarray] = {}
        with self._lock:
            try:
                for start in range(0, len(keys), 500):  # SQLite's bound-parameter limit
                    chunk = list(keys)[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    for sha, dims, blob in self._db.execute(
                        f"SELECT text_sha256, dims, vector FROM embeddings WHERE model = ? AND text_sha256 IN ({marks})",
                        (model, *chunk),
                    ):
                        found[keys[sha]] = np.frombuffer(blob, dtype=np.float32, count=dims).copy()
            except sqlite3.OperationalError:  # a read-only cache written before the table existed
                return {}
            except sqlite3.DatabaseError as err:
                raise broken(self.path, err) from None
        return found

    def put_many(self, model: str, texts: list[str], vectors: np.ndarray) -> None:
        """Store each text's vector at once (autocommit)."""
        import numpy as np

        if self._db is None or self.mode is not CacheMode.READ_WRITE:
            return
        now = time.time()
        rows = [
            (model, self.key(t), int(v.size), np.asarray(v, dtype=np.float32).tobytes(), now)
            for t, v in zip(texts, vectors)
        ]
        try:
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO embeddings (model, text_sha256, dims, vector, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.DatabaseError as err:
            raise broken(self.path, err) from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
