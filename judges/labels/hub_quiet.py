"""Hub loads that fail in one line: one request to see the hub is reachable, and the libraries' retry warnings kept
quiet while a hub call runs."""

from __future__ import annotations

import contextlib
import logging
import os
import urllib.error
import urllib.request
from collections.abc import Iterator

from judges.errors import InputError

LOGGERS = ("huggingface_hub", "datasets", "fsspec", "httpx", "urllib3")
PROBE_TIMEOUT_S = 20.0


def hub_offline() -> bool:
    """The user asked for no hub request (HF_HUB_OFFLINE or HF_DATASETS_OFFLINE): only local copies are read."""
    return any(
        os.environ.get(var, "").upper() in ("1", "ON", "YES", "TRUE")
        for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    )


def hub_endpoint(mirror: str | None = None) -> str:
    return (mirror or os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def reach_hub(repo: str, fix: str, mirror: str | None = None) -> None:
    """One request for the dataset's page of the hub's API; when the host cannot be reached (no network, DNS, a
    refused connection), one InputError ending with `fix`, before any library retries."""
    url = f"{hub_endpoint(mirror)}/api/datasets/{repo}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=PROBE_TIMEOUT_S):
            return
    except urllib.error.HTTPError:
        return  # the host answered (404, 401, ...): the library says what is wrong, in one line
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", None) or err
        raise InputError(f"cannot reach the Hugging Face hub for {repo} ({reason}); {fix}") from None


@contextlib.contextmanager
def quiet_hub() -> Iterator[None]:
    """The hub libraries' warnings (retries, fallbacks) silenced for the duration; their errors still raise."""
    loggers = [logging.getLogger(name) for name in LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
