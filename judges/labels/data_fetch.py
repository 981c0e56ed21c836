"""A public labelled set fetched by name: its pinned files streamed to a staging folder, checked by sha256, then
moved into place together (a mismatch or a failed download leaves nothing)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from judges.errors import InputError
from judges.labels.dataset_registry import DataFile, DataSet
from judges.labels.hub_quiet import hub_offline, quiet_hub, reach_hub

MIRROR_VAR = "JUDGELAB_DATA_MIRROR"  # another host serving the same paths (RAW's path, or the hub's API)
CHUNK = 1 << 20
TIMEOUT_S = 60.0  # per socket operation, not for the whole file


def file_digest(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def present(file: DataFile, dest: Path) -> bool:
    """The file is in `dest` with its pinned sha256."""
    path = dest / file.path
    return path.is_file() and file_digest(path) == file.sha256


def _download(url: str, target: Path) -> str:
    """`url` streamed to `target`; its sha256. A failure is one line naming the URL."""
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, target.open("wb") as out:
            while chunk := response.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
    except urllib.error.HTTPError as err:
        raise InputError(f"cannot download {url}: HTTP {err.code} {err.reason}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", None) or err
        raise InputError(f"cannot download {url}: {reason}") from None
    return digest.hexdigest()


def fetch_files(entry: DataSet, dest: Path, mirror: str | None = None) -> int:
    """The set's files that `dest` lacks, downloaded and checked, then renamed into place; how many were fetched.
    Every file is checked before any is moved, so a mismatch leaves `dest` as it was."""
    needed = [file for file in entry.files if not present(file, dest)]
    if not needed:
        return 0
    created = not dest.exists()
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".fetching-{entry.name}-", dir=dest))
    try:
        staged = []
        for number, file in enumerate(needed):
            url = entry.url(file, mirror)
            digest = _download(url, staging / str(number))
            if digest != file.sha256:
                raise InputError(f"{url}: sha256 {digest} is not the pinned {file.sha256}; nothing was kept")
            staged.append((staging / str(number), dest / file.path))
        for temporary, target in staged:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temporary, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created and not any(dest.iterdir()):
            dest.rmdir()
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return len(needed)


def fetch_hub(entry: DataSet, dest: Path, mirror: str | None = None) -> Path:
    """A hub set's snapshot at its revision into `dest/<name>/` (the hub's layout, read by datasets.load_dataset)."""
    import huggingface_hub  # defers huggingface_hub

    if hub_offline():
        raise InputError(f"{entry.name} is on the Hugging Face hub and HF_HUB_OFFLINE is set; unset it to fetch")
    reach_hub(entry.repo, "fetch it where the hub is reachable (or give --mirror)", mirror)
    target = dest / entry.folder
    created = not target.exists()
    try:
        with quiet_hub():
            huggingface_hub.snapshot_download(
                entry.repo, repo_type="dataset", revision=entry.revision, local_dir=str(target), endpoint=mirror
            )
    except Exception as err:  # offline, no such repository or revision, a refused mirror: one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if created:
            shutil.rmtree(target, ignore_errors=True)
        raise InputError(f"cannot download {entry.repo}@{entry.revision} from the hub: {first}") from None
    return target


def fetch(entry: DataSet, dest: Path, mirror: str | None = None) -> str:
    """The set fetched into `dest`; the line saying what was done."""
    mirror = mirror or os.environ.get(MIRROR_VAR) or None
    if entry.hub:
        target = fetch_hub(entry, dest, mirror)
        return f"{entry.name}: the hub's {entry.repo} ({entry.revision}) in {target}; {entry.pin}"
    fetched = fetch_files(entry, dest, mirror)
    kept = len(entry.files) - fetched
    already = f", {kept} already there" if kept else ""
    return (
        f"{entry.name}: {fetched} file(s) fetched{already}, sha256 checked, in {dest / entry.folder} "
        f"(from {entry.source()})"
    )
