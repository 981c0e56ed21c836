"""The viewer's HTTP server: the standard library's, bound to 127.0.0.1, answering GET and HEAD only (read-only)."""

from __future__ import annotations

import mimetypes
import os
import shutil
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from judges.errors import JudgelabError
from judges.viewer import pages
from judges.viewer.catalog import inside

HOST = "127.0.0.1"  # never another interface: run folders hold prompts, samples and replies


class ViewerHandler(BaseHTTPRequestHandler):
    """Routes: `/` index, `/run/<dir>` a run, `/compare?run=A&run=B` a comparison, `/leaderboard/<dir>`,
    `/files/<path>` a file under the root as it is (report.html, plots)."""

    root: Path = Path(".")

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal shows the URL only
        return

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), parse_qs(parts.query)

        def first(name: str, default: str = "") -> str:
            return query.get(name, [default])[0]

        try:
            if path in ("/", "/index.html"):
                self._send(200, pages.index_page(self.root).encode(), "text/html; charset=utf-8", body)
            elif path.startswith("/run/"):
                page = int(first("page", "1")) if first("page", "1").isdigit() else 1
                html = pages.run_page(self.root, path[5:].strip("/"), page, first("outcome"), first("metric"))
                self._send(200, html.encode(), "text/html; charset=utf-8", body)
            elif path == "/compare":
                html = pages.compare_page(self.root, query.get("run", []))
                self._send(200, html.encode(), "text/html; charset=utf-8", body)
            elif path.startswith("/leaderboard/"):
                html = pages.leaderboard_page(self.root, path[13:].strip("/") or ".")
                self._send(200, html.encode(), "text/html; charset=utf-8", body)
            elif path.startswith("/files/"):
                self._file(path[7:], body)
            else:
                self._send(404, b"not found", "text/plain; charset=utf-8", body)
        except JudgelabError as err:
            self._send(404, str(err).encode(), "text/plain; charset=utf-8", body)

    def _file(self, relative: str, body: bool) -> None:
        target = inside(self.root, relative)
        if target is None or not target.is_file():
            self._send(404, b"not found", "text/plain; charset=utf-8", body)
            return
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind == "application/json":
            kind += "; charset=utf-8"
        with target.open("rb") as handle:  # copied in blocks: a results.jsonl of any size is never held
            self._headers(200, kind, os.fstat(handle.fileno()).st_size)
            if body:
                shutil.copyfileobj(handle, self.wfile)

    def _send(self, status: int, content: bytes, kind: str, body: bool) -> None:
        self._headers(status, kind, len(content))
        if body:
            self.wfile.write(content)

    def _headers(self, status: int, kind: str, length: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()


def make_server(root: Path, port: int = 0) -> ThreadingHTTPServer:
    """A server over `root` on 127.0.0.1 (`port` 0: any free port); the caller runs `serve_forever`."""
    handler = type("BoundViewerHandler", (ViewerHandler,), {"root": root.resolve()})
    return ThreadingHTTPServer((HOST, port), handler)
