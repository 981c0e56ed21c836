"""Serves a run folder on 127.0.0.1 (the standard library's http.server) until interrupted."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

from judges.errors import ConfigError


def serve_folder(folder: Path, port: int, page: str) -> None:
    """Print the page's URL, then serve `folder` read-only until Ctrl-C."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as err:  # the port is taken, or reserved
        raise ConfigError(f"--port {port}: cannot listen on 127.0.0.1:{port} ({err.strerror or err})") from None
    with server:
        print(f"serving {folder} at http://127.0.0.1:{server.server_address[1]}/{page} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
