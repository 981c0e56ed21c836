"""`judgelab data list|fetch NAME`: the public labelled sets judgelab reads, fetched by name into the data cache."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from judges.errors import ConfigError
from judges.labels.data_fetch import MIRROR_VAR, fetch, present
from judges.labels.dataset_registry import DataSet, registry
from judges.labels.shared import ENV_VAR, HOME_VAR, data_home, dataset_roots, find_folder


def configure(parser: argparse.ArgumentParser) -> None:
    """The subcommands and their options."""
    sub = parser.add_subparsers(dest="data_command", metavar="SUBCOMMAND", required=True)
    sub.add_parser("list", help="each set: its --labels names, source, licence and whether it is here")
    get = sub.add_parser("fetch", help="download a set's pinned files, check their sha256, and show its licence")
    get.add_argument("name", metavar="NAME", help="a set (`judgelab data list`) or a --labels name (begin-cmu)")
    get.add_argument(
        "--to",
        metavar="DIR",
        help=f"the datasets folder to fill (default ${HOME_VAR}, else $XDG_CACHE_HOME/judgelab/datasets, "
        "~/.cache/judgelab/datasets); another folder is read with JUDGELAB_SHARED=DIR",
    )
    get.add_argument(
        "--mirror",
        metavar="URL",
        help=f"another host serving the same paths (default ${MIRROR_VAR}; else raw.githubusercontent.com, the hub)",
    )


def chosen(name: str) -> DataSet:
    """The set a name means: a set's own name or one of its --labels names; else one line with the nearest."""
    sets = registry()
    found = sets.get(name) or next((s for s in sets.values() if name.partition(":")[0] in s.labels), None)
    if found is None:
        names = list(sets) + [label for s in sets.values() for label in s.labels]
        near = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {near[0]}?" if near else f"; the sets: {', '.join(sets)}"
        raise ConfigError(f"no labelled set {name!r}{hint}")
    return found


def where(entry: DataSet) -> str:
    """Where the set is on this machine (the first folder searched holding all its files), or `-`."""
    if entry.hub:
        folder = find_folder(entry.folder)
        return str(folder) if folder is not None else "-"
    for root in dataset_roots():
        if all(present(file, root) for file in entry.files):
            return str(root / entry.folder)
    return "-"


def list_sets() -> None:
    rows = [("set", "--labels names", "source", "files", "licence", "here")]
    for entry in registry().values():
        files = f"{len(entry.files)}, sha256" if entry.files else "hub snapshot"
        source = f"{entry.repo}@{entry.revision[:12]}"
        rows.append((entry.name, ", ".join(entry.labels) or "-", source, files, entry.licence, where(entry)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
    print(f"fetch one with `judgelab data fetch NAME` (into {data_home()}, read after ${ENV_VAR} and ../shared)")


def run(args: argparse.Namespace) -> int:
    if args.data_command == "list":
        list_sets()
        return 0
    entry = chosen(args.name)
    dest = Path(args.to) if args.to else data_home()
    print(fetch(entry, dest, args.mirror))
    print(f"licence: {entry.licence}")
    print(f"cite: {entry.citation}")
    if args.to and dest.resolve() != data_home().resolve():
        print(f"read it with {ENV_VAR}={dest}")
    return 0
