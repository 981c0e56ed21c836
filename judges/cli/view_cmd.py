"""`judgelab view [DIR]`: a local, read-only viewer over every run folder and leaderboard under DIR (or results/)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judges.cli.serve import serve_until_stopped
from judges.cli.show_cmd import has_display
from judges.errors import InputError
from judges.viewer.view_server import make_server


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default="results", metavar="DIR", help="folder to index (default results/)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    parser.add_argument("--no-browser", action="store_true", help="only print the URL, even when there is a display")


def run(args: argparse.Namespace) -> int:
    import contextlib

    root = Path(args.dir)
    if not root.is_dir():
        raise InputError("no such folder", path=str(root))
    with make_server(root, args.port) as server:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        print(f"viewing {root.resolve()} at {url} (read-only; Ctrl-C stops)", flush=True)
        if has_display() and not args.no_browser:
            import webbrowser

            webbrowser.open(url)
        with contextlib.suppress(KeyboardInterrupt):
            serve_until_stopped(server)
    return 0
