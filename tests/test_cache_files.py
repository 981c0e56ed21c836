"""A cache file that is not judgelab's (corrupt, foreign, a folder) is one ConfigError naming it and the fix."""

import sqlite3

import pytest

from judges.calls.cache import CacheMode, ReplyCache
from judges.errors import ConfigError

FIX = "give another --cache PATH, run with --cache-mode off, or delete the file"


def test_corrupt_file_is_named_with_the_fix(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(ConfigError) as err:
        ReplyCache(path)
    assert str(err.value) == f"cache {path} cannot be used (file is not a database): {FIX}"


def test_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    before = path.read_bytes()
    for mode in (CacheMode.READ_WRITE, CacheMode.READ_ONLY):
        with pytest.raises(ConfigError) as err:
            ReplyCache(path, mode)
        assert str(err.value) == f"cache {path} is an SQLite file but not a judgelab reply cache (tables: users): {FIX}"
    assert path.read_bytes() == before


def test_a_folder_is_not_a_cache(tmp_path):
    with pytest.raises(ConfigError) as err:
        ReplyCache(tmp_path)
    assert str(err.value) == f"cache {tmp_path} cannot be used (unable to open database file): {FIX}"


def test_an_empty_file_and_off_mode_are_fine(tmp_path):
    (tmp_path / "empty.sqlite").write_bytes(b"")
    ReplyCache(tmp_path / "empty.sqlite").close()
    ReplyCache(tmp_path / "not-a-db.txt", CacheMode.OFF).close()
