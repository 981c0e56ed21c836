"""Where the public labelled sets are: $JUDGELAB_SHARED (else ../shared/datasets), then the user's data cache."""

from __future__ import annotations

import os
from pathlib import Path

from judges.errors import DatasetMissing, InputError
from judges.files.checked import read_json_file
from judges.labels.dataset_registry import registry, set_for_labels

ENV_VAR = "JUDGELAB_SHARED"
HOME_VAR = "JUDGELAB_DATA_HOME"


def data_home() -> Path:
    """Where `judgelab data fetch` puts the sets: $JUDGELAB_DATA_HOME, else $XDG_CACHE_HOME/judgelab/datasets
    (default ~/.cache/judgelab/datasets), laid out as ../shared/datasets is."""
    if os.environ.get(HOME_VAR):
        return Path(os.environ[HOME_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "judgelab" / "datasets"


def _holds_sets(folder: Path) -> bool:
    return folder.is_dir() and any((folder / entry.folder).is_dir() for entry in registry().values())


def beside_checkout() -> list[Path]:
    """../shared/datasets beside the checkout holding judges/, then beside the working directory."""
    checkout = Path(__file__).resolve().parents[2]
    return [checkout.parent / "shared" / "datasets", Path.cwd().parent / "shared" / "datasets"]


def dataset_roots() -> list[Path]:
    """The folders searched, in order: $JUDGELAB_SHARED (the shared folder with datasets/ inside, or the datasets
    folder itself) or, without it, ../shared/datasets beside the checkout, then beside the working directory; last
    the user's data cache (`data_home`). The data is read in place, never copied."""
    override = os.environ.get(ENV_VAR)
    candidates = [Path(override) / "datasets", Path(override)] if override else beside_checkout()
    shared = next((c for c in candidates if _holds_sets(c)), None)
    return [root for root in (shared, data_home()) if root is not None]


def _looked_in() -> str:
    override = os.environ.get(ENV_VAR)
    return f"{'$' + ENV_VAR + '=' + override if override else '../shared/datasets'} nor {data_home()}"


def _fetched(wanted: str, fetched: str) -> bool:
    """Whether a fetched file is the one wanted or lies in the folder wanted (`llmbar/Natural`)."""
    return fetched == wanted or fetched.startswith(wanted.rstrip("/") + "/")


def missing(relative: str) -> DatasetMissing:
    """The one line for a set's file found nowhere, naming the command that fetches it."""
    entry = set_for_labels(Path(relative).parts[0]) if relative else None
    if entry is None:
        fix = "`judgelab data list` names the sets judgelab fetches"
    elif entry.files and not any(_fetched(Path(relative).as_posix(), file.path) for file in entry.files):
        fix = f"`judgelab data fetch {entry.name}` does not get this file: place upstream's copy there"
    else:
        fix = f"run `judgelab data fetch {entry.name}`"
    return DatasetMissing(f"{relative} not found in {_looked_in()}; {fix} (or set {ENV_VAR} to a folder holding it)")


def shared_datasets_dir() -> Path:
    """The first folder searched that holds a set (begin/, topical_chat/, ragchecker/, alce/, llmbar/)."""
    for root in dataset_roots():
        if _holds_sets(root):
            return root
    raise DatasetMissing(
        f"labelled datasets not found in {_looked_in()}; run `judgelab data fetch NAME` (`judgelab data list` "
        f"names them) or set {ENV_VAR} to the shared folder"
    )


def shared_path(relative: str) -> Path:
    """`relative` in the first folder searched that has it; an InputError when it would leave the folder (an
    absolute path, `..`), a DatasetMissing naming the fetch command when no folder has it."""
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts:
        raise InputError(
            f"shared:{relative} leaves the shared datasets folder; name a file under it, e.g. shared:begin/x.json"
        )
    for root in dataset_roots():
        if root.joinpath(*parts).exists():
            return root.joinpath(*parts)
    raise missing(relative)


def shared_file(*parts: str) -> Path:
    """A file of the labelled sets; a DatasetMissing naming the fetch command if no folder searched has it."""
    path = shared_path(str(Path(*parts)))
    if not path.is_file():
        raise InputError("shared dataset file not found", path=str(path))
    return path


def read_shared_json(*parts: str) -> object:
    """A shared JSON file, parsed; a malformed file is an InputError naming it."""
    return read_json_file(shared_file(*parts))


def find_folder(name: str) -> Path | None:
    """A set's folder (a hub set's snapshot, e.g. wikieval/) in the first folder searched that has it."""
    return next((root / name for root in dataset_roots() if (root / name).is_dir()), None)
