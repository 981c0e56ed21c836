"""The options every command shares checked before any work: `--out` (`--junit`) writable, `--port` a port, numbers finite."""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from judges.errors import ConfigError

FILE_OUT = "out_is_file"  # set by a command whose --out names a file (`parser.set_defaults(out_is_file=True)`)
LARGEST_PORT = 65535
# --draws K multiplies a run's calls by K; past 100 the modal verdict's confidence (a share of K draws, standard
# error at most 0.5 / sqrt(K) = 0.05) gains nothing a gate could read, and a mistyped 1000000 would be a bill
MOST_DRAWS = 100


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One ConfigError line for the first option that cannot work: a non-finite number (`--threshold nan`: a NaN
    compares false with every score), `--draws` outside 1-MOST_DRAWS, a port outside 0-65535, an `--out` that
    cannot be written."""
    for dest, value in vars(args).items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{_flag(parser, dest)}: expected a finite number, got {value}")
    draws = getattr(args, "draws", None)
    if isinstance(draws, int) and not 1 <= draws <= MOST_DRAWS:
        raise ConfigError(f"--draws: expected 1 to {MOST_DRAWS} draws per item, got {draws}")
    port = getattr(args, "port", None)
    if isinstance(port, int) and not 0 <= port <= LARGEST_PORT:
        raise ConfigError(f"--port: expected 0 (any free port) to {LARGEST_PORT}, got {port}")
    check_out(args)


def _flag(parser: argparse.ArgumentParser, dest: str) -> str:
    """The long option that stores into `dest` (in the command or a subcommand), else `--dest`."""
    for action in _actions(parser):
        if action.dest == dest and action.option_strings:
            return max(action.option_strings, key=len)
    return "--" + dest.replace("_", "-")


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _actions(child)


def check_out(args: argparse.Namespace) -> None:
    """A ConfigError, before the command reads or computes anything, when its `--out` (or `--junit`, a file) cannot
    be written: a folder that is a file, a file that is a folder, or a path under a file or in a folder this user
    cannot write."""
    if getattr(args, "out", None):
        check_writable("--out", str(args.out), as_file=bool(getattr(args, FILE_OUT, False)))
    if getattr(args, "junit", None):
        check_writable("--junit", str(args.junit), as_file=True)


def check_writable(flag: str, given: str, *, as_file: bool) -> None:
    """One line when `given` cannot be written: the permission bits are asked, then a folder is made and removed
    in the nearest existing folder (root passes every permission check, yet cannot write under /sys or /proc, nor
    anyone on a read-only file system)."""
    out = Path(given)
    if as_file and out.is_dir():
        raise ConfigError(f"{flag} {given}: is a folder; a file is expected here")
    if not as_file and out.exists() and not out.is_dir():
        raise ConfigError(f"{flag} {given}: is a file, not a folder; name a folder (it is made if needed)")
    existing = out if out.is_dir() else _nearest_existing(out)
    if existing is None:
        return
    if not existing.is_dir():
        raise ConfigError(f"{flag} {given}: {existing} is a file, so nothing can be written under it")
    if not os.access(existing, os.W_OK | os.X_OK) or (as_file and out.exists() and not os.access(out, os.W_OK)):
        raise ConfigError(f"{flag} {given}: cannot write in {existing} (permission denied)")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".judgelab-write-check-", dir=existing))
    except OSError as err:
        raise ConfigError(f"{flag} {given}: cannot write in {existing} ({err.strerror or err})") from None


def _nearest_existing(path: Path) -> Path | None:
    """The closest ancestor of `path` that exists (the folder its new parts would be made in)."""
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return None
