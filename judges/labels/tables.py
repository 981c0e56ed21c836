"""Rows of a user's labelled file: CSV/TSV (pandas), JSONL, JSON, Parquet (pyarrow), or a Hugging Face dataset."""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.checked import check, read_json_file
from judges.files.jsonl import read_jsonl
from judges.labels.hub_sets import load_hub_rows

SAVED_DATASET_FILES = ("dataset_info.json", "state.json", "dataset_dict.json")


def _csv_rows(path: Path, tsv: bool) -> Iterator[tuple[int, Mapping[str, Any]]]:
    import pandas as pd

    # every cell as text (labels are parsed later); a TSV's quotes are text, as in BEGIN's raw files
    try:
        frame = pd.read_csv(
            path,
            sep="\t" if tsv else ",",
            dtype=str,
            keep_default_na=False,
            quoting=csv.QUOTE_NONE if tsv else csv.QUOTE_MINIMAL,
            encoding="utf-8",
        )
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start + 1}); save the file as UTF-8", path=str(path)) from None
    except pd.errors.EmptyDataError:
        raise InputError("the file holds no header row and no rows", path=str(path)) from None
    except pd.errors.ParserError as err:
        raise InputError(f"not a readable table: {str(err).splitlines()[0][:200]}", path=str(path)) from None
    yield from enumerate(frame.to_dict(orient="records"), start=2)  # line 1 is the header


def _parquet_rows(path: Path) -> list[dict[str, Any]]:
    """A Parquet file's rows; a file that is not Parquet (text, empty, cut short) is one InputError."""
    import pyarrow as pa  # defers pyarrow
    import pyarrow.parquet as pq  # defers pyarrow

    try:
        return list(pq.read_table(path).to_pylist())
    except (pa.ArrowException, OSError) as err:
        reason = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise InputError(f"not a readable Parquet file ({reason})", path=str(path)) from None


def _saved_dataset_rows(path: Path, split: str) -> list[dict[str, Any]]:
    """A folder written by `Dataset.save_to_disk` (or `DatasetDict.save_to_disk`), read by `load_from_disk`."""
    import datasets

    loaded = datasets.load_from_disk(str(path))
    if isinstance(loaded, datasets.DatasetDict):
        if split not in loaded:
            raise InputError(
                f"no split {split!r} (splits: {', '.join(loaded)}); choose one with --split", path=str(path)
            )
        loaded = loaded[split]
    return loaded.to_list()


def iter_rows(source: str, *, split: str = "train") -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line or row number, row) from a CSV/TSV/JSONL/JSON/Parquet file, a saved dataset folder, else the hub;
    each row passes `checked.check` (encodable text, sane nesting) or is one InputError naming it."""

    for number, row in _rows(source, split):
        check(row, path=source, line=number)
        yield number, row


def _rows(source: str, split: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv", ".json", ".parquet") and not path.is_file():
        raise InputError("file not found", path=source)
    if suffix in (".csv", ".tsv"):
        yield from _csv_rows(path, suffix == ".tsv")
    elif suffix == ".jsonl":
        yield from read_jsonl(path)
    elif suffix == ".json":
        data = read_json_file(path)
        if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
            raise InputError("expected a JSON list of objects", path=source)
        yield from enumerate(data, start=1)
    elif suffix == ".parquet":
        yield from enumerate(_parquet_rows(path), start=1)
    elif path.is_dir() and any((path / name).is_file() for name in SAVED_DATASET_FILES):
        yield from enumerate(_saved_dataset_rows(path, split), start=1)
    else:
        yield from enumerate(load_hub_rows(source, split), start=1)
