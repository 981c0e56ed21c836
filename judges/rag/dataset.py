"""Loads RAG samples from a JSONL file, or through `datasets` from a local file / saved folder or the hub."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judges.errors import InputError
from judges.files.checked import check
from judges.files.record_file import RecordFile
from judges.rag.sample import parse_record
from judges.types import Sample

HF_PREFIX = "hf:"
_BUILDERS = {".parquet": "parquet", ".json": "json", ".jsonl": "json", ".csv": "csv", ".arrow": "arrow"}


def load_rag_samples(
    spec: str,
    *,
    split: str | None = None,
    config: str | None = None,
    mapping: Mapping[str, str] | None = None,
    limit: int | None = None,
) -> Sequence[Sample]:
    """`FILE.jsonl` (judgelab's reader: checked at once, then read again as the run reaches each sample), or `hf:SOURCE` through `datasets`: a local .parquet/.json/.jsonl/.csv
    file, a folder written by `save_to_disk`, or a hub dataset name (needs the network)."""
    if not spec.startswith(HF_PREFIX):
        return RecordFile.scan(
            spec,
            lambda line, obj: parse_record(obj, default_id=str(line), path=spec, line=line, mapping=mapping),
            limit=limit,
        )
    source = spec[len(HF_PREFIX) :]
    rows = _hf_rows(source, split, config)
    for number, row in enumerate(rows, 1):
        check(row, path=spec, line=number)
    samples = [
        parse_record(row, default_id=str(i), path=spec, line=i, mapping=mapping) for i, row in enumerate(rows, 1)
    ]
    return samples[:limit]


def _hf_rows(source: str, split: str | None, config: str | None) -> list[dict[str, Any]]:
    import datasets

    path = Path(source)
    try:
        if path.is_dir() and ((path / "dataset_info.json").is_file() or (path / "dataset_dict.json").is_file()):
            loaded = datasets.load_from_disk(str(path))
        elif path.is_file():
            builder = _BUILDERS.get(path.suffix.lower())
            if builder is None:
                raise InputError(
                    f"no datasets reader for {path.suffix!r} files (use {', '.join(_BUILDERS)})", path=source
                )
            loaded = datasets.load_dataset(builder, data_files=str(path), split=split or "train")
        else:
            loaded = datasets.load_dataset(source, config, split=split or "test")
    except (FileNotFoundError, ValueError, ConnectionError, OSError) as err:
        raise InputError(f"cannot load the dataset: {str(err).splitlines()[0][:200]}", path=source) from None
    if isinstance(loaded, datasets.DatasetDict):
        names = list(loaded)
        chosen = split or ("test" if "test" in names else names[0])
        if chosen not in loaded:
            raise InputError(f"no split {chosen!r}; the dataset has {', '.join(names)}", path=source)
        loaded = loaded[chosen]
    return [dict(row) for row in loaded]
