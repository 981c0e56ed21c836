"""Reading GroUSE-layout datasets (train.jsonl / test.jsonl) through `datasets`, from the hub or a local folder."""

from __future__ import annotations

from typing import Any

from judges.errors import InputError


def load_split_records(repo_or_folder: str, split: str) -> list[dict[str, Any]]:
    """One split as plain dicts; network or missing-data problems become one clear InputError."""
    import datasets  # heavy: imported only when a hub dataset is asked for

    data_files = {name: f"{name}.jsonl" for name in ("train", "test")}
    try:
        dataset = datasets.load_dataset(repo_or_folder, data_files=data_files, split=split)
    except Exception as err:  # datasets raises many types for "offline" / "not found"
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(
            f"cannot load {split!r} of {repo_or_folder!r} from the Hugging Face hub "
            f"(no network, or no such dataset): {first_line}"
        ) from None
    return [dict(row) for row in dataset]
