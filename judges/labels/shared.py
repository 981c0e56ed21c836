"""Where the shared human-labelled sets are: $JUDGELAB_SHARED, else ../shared/datasets beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

from judges.errors import InputError
from judges.files.checked import read_json_file

ENV_VAR = "JUDGELAB_SHARED"


def shared_datasets_dir() -> Path:
    """The folder holding begin/, topical_chat/, ragchecker/, alce/.

    $JUDGELAB_SHARED may name the shared folder (with datasets/ inside) or the datasets folder itself;
    without it, ../shared/datasets relative to the repository root (the checkout holding judges/),
    then relative to the working directory. The data is read in place, never copied.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        root = Path(override)
        candidates = [root / "datasets", root]
    else:
        checkout = Path(__file__).resolve().parents[2]
        candidates = [checkout.parent / "shared" / "datasets", Path.cwd().parent / "shared" / "datasets"]
    for candidate in candidates:
        if candidate.is_dir() and any((candidate / name).is_dir() for name in ("begin", "ragchecker", "alce")):
            return candidate
    where = f"${ENV_VAR}={override}" if override else "../shared/datasets"
    raise InputError(f"shared labelled datasets not found at {where}; set {ENV_VAR} to the shared folder")


def shared_path(relative: str) -> Path:
    """`relative` under the shared datasets folder; an InputError when it would leave it (an absolute path, `..`)."""
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts:
        raise InputError(
            f"shared:{relative} leaves the shared datasets folder; name a file under it, e.g. shared:begin/x.json"
        )
    return shared_datasets_dir().joinpath(*parts)


def shared_file(*parts: str) -> Path:
    """A file of the shared datasets; an InputError if it is missing."""
    path = shared_path(str(Path(*parts)))
    if not path.is_file():
        raise InputError("shared dataset file not found", path=str(path))
    return path


def read_shared_json(*parts: str) -> object:
    """A shared JSON file, parsed; a malformed file is an InputError naming it."""

    path = shared_file(*parts)

    return read_json_file(path)
