"""The viewer's HTTP server: the standard library's, bound to 127.0.0.1, answering GET and HEAD only (read-only)."""

from __future__ import annotations

import mimetypes
import os
import shutil
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from judges.errors import ConfigError, JudgelabError
from judges.viewer import pages
from judges.viewer.catalog import inside

HOST = "127.0.0.1"  # never another interface: run folders hold prompts, samples and replies
MOST_PAGE_DIGITS = 12
LONGEST_NAME = 255  # bytes in one file name (NAME_MAX on Linux and macOS): a longer segment names nothing
MOST_COMPARED = 8  # runs on one compare page: every pair is compared (28 pairs at 8), so the page grows as the square


def foreign_host(host: str | None, port: int) -> str | None:
    """Why a request's Host header is not this server's own (127.0.0.1:PORT or localhost:PORT; without the port
    on port 80), or None: a page of another site whose name was rebound to 127.0.0.1 (DNS rebinding) sends its
    own name, and must not read the run folders."""
    if not host:
        return "no Host header"
    names = {f"127.0.0.1:{port}", f"localhost:{port}"} | ({"127.0.0.1", "localhost"} if port == 80 else set())
    return (
        None if host.strip().lower() in names else f"this server answers to 127.0.0.1:{port} or localhost:{port} only"
    )


def compared_runs(ticked: list[str]) -> tuple[list[str], str | None]:
    """The runs a compare URL ticks, each once in the order first ticked, and why they cannot be compared (over
    MOST_COMPARED of them), or None."""
    runs = list(dict.fromkeys(ticked))
    if len(runs) > MOST_COMPARED:
        return runs, f"tick at most {MOST_COMPARED} runs to compare, got {len(runs)}; compare them in smaller groups"
    return runs, None


def malformed(path: str, query: dict[str, list[str]]) -> str | None:
    """Why a request can name no page (a NUL or another control character, a page number that is not digits), or
    None; a path segment longer than any file name is not malformed, it is not found."""
    values = [path, *(value for values in query.values() for value in values)]
    if any(ch < " " or ch == "\x7f" for value in values for ch in value):
        return "a control character in the request"
    page = query.get("page", ["1"])[0]
    if not (page.isascii() and page.isdigit() and len(page) <= MOST_PAGE_DIGITS):
        return f"page must be a number of at most {MOST_PAGE_DIGITS} digits, got {page[:40]!r}"
    return None


def too_long(path: str, query: dict[str, list[str]]) -> bool:
    """Whether the path, or a run named in the query, has a segment longer than any file name."""
    names = [path, *query.get("run", [])]
    return any(len(part.encode("utf-8", "surrogatepass")) > LONGEST_NAME for name in names for part in name.split("/"))


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
        port = self.server.server_address[1] if isinstance(self.server.server_address, tuple) else 0
        wrong_host = foreign_host(self.headers.get("Host"), int(port))
        if wrong_host is not None:
            self._send(421, f"misdirected request: {wrong_host}".encode(), "text/plain; charset=utf-8", body)
            return
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        problem = malformed(path, query)
        if problem is not None:
            self._send(400, f"bad request: {problem}".encode(), "text/plain; charset=utf-8", body)
            return
        if too_long(path, query):
            self._send(404, b"not found", "text/plain; charset=utf-8", body)
            return
        try:
            self._route(path, query, body)
        except JudgelabError as err:
            self._send(404, str(err).encode(), "text/plain; charset=utf-8", body)
        except ConnectionError:  # the browser went away mid-answer
            return
        except OSError:  # a name the file system refuses (too long, a loop of links): nothing is there to show
            self._send(404, b"not found", "text/plain; charset=utf-8", body)

    def _route(self, path: str, query: dict[str, list[str]], body: bool) -> None:
        """The page a well-formed request names; a JudgelabError when the folder holds none."""

        def first(name: str, default: str = "") -> str:
            return query.get(name, [default])[0]

        if path in ("/", "/index.html"):
            self._send(200, pages.index_page(self.root).encode(), "text/html; charset=utf-8", body)
        elif path.startswith("/run/"):
            page = int(first("page", "1"))
            html = pages.run_page(self.root, path[5:].strip("/"), page, first("outcome"), first("metric"))
            self._send(200, html.encode(), "text/html; charset=utf-8", body)
        elif path == "/compare":
            runs, refused = compared_runs(query.get("run", []))
            if refused is not None:
                self._send(400, f"bad request: {refused}".encode(), "text/plain; charset=utf-8", body)
                return
            html = pages.compare_page(self.root, runs)
            self._send(200, html.encode(), "text/html; charset=utf-8", body)
        elif path.startswith("/leaderboard/"):
            html = pages.leaderboard_page(self.root, path[13:].strip("/") or ".")
            self._send(200, html.encode(), "text/html; charset=utf-8", body)
        elif path.startswith("/files/"):
            self._file(path[7:], body)
        else:
            self._send(404, b"not found", "text/plain; charset=utf-8", body)

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
    try:
        return ThreadingHTTPServer((HOST, port), handler)
    except OSError as err:  # the port is taken, or reserved
        raise ConfigError(f"--port {port}: cannot listen on {HOST}:{port} ({err.strerror or err})") from None
