"""Where the shipped prompts and unit tests are: the source checkout's root, or the installed wheel."""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED_TESTS = "unit_tests"  # the folder of the shipped unit-test suite
SHIPPED_PROMPTS = "prompts"  # the folder of the shipped prompt sets


def bundled_dir(name: str) -> Path:
    """`prompts` or `unit_tests`: $JUDGELAB_DATA/<name>, the checkout's folder, else the wheel's copy."""
    override = os.environ.get("JUDGELAB_DATA")
    if override:
        return Path(override) / name
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    return Path(__file__).resolve().parents[1] / "_bundled" / name
