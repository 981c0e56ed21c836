"""Serves a run folder on 127.0.0.1 (the standard library's http.server) until interrupted; every server's loop."""

from __future__ import annotations

import contextlib
import functools
import signal
import threading
from pathlib import Path
from typing import Any

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
            serve_until_stopped(server)


def serve_until_stopped(server: Any) -> None:
    """`server.serve_forever()` until Ctrl-C or SIGTERM, which ends it the same way (KeyboardInterrupt): a server
    started in the background, where SIGINT is ignored, still stops cleanly when asked."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may take a signal
        server.serve_forever()
        return

    def stopped(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stopped)
    try:
        server.serve_forever()
    finally:
        signal.signal(signal.SIGTERM, previous)
