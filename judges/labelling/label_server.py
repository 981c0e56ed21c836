"""The labelling page on the loopback address: the standard library's HTTP server and the package's Jinja2 templates,
for a queue labelled one metric at a time or an audit's pairs compared per metric."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from judges.errors import ConfigError
from judges.labelling.certificate_watch import CertificateWatch
from judges.labelling.session import LabellingSession

HOST = "127.0.0.1"
MAX_FORM_BYTES = 100_000


class Pages(Protocol):
    """What the server serves: a page per position, the done page, and how a posted form is recorded."""

    def size(self) -> int: ...
    def resume_position(self) -> int | None: ...
    def next_position(self, after: int) -> int | None: ...
    def page(self, position: int) -> str: ...
    def done_page(self) -> str: ...
    def submit(self, position: int, form: Mapping[str, str]) -> None:
        """Record the answer; ValueError when it cannot be recorded (the page says why)."""
        ...


@functools.cache
def environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("judges.pages", "templates"),  # every page template of the package lives there
        autoescape=select_autoescape(["html", "jinja"], default=True),
        undefined=StrictUndefined,
    )


def render_item(session: LabellingSession, position: int, certificate: str | None = None) -> str:
    """The page of one item: the sample, the rubric, the scale; the annotator's own earlier answer, if any.

    Only the queue's sample fields reach the page: never a judge's grade, reasoning or selection record.
    """
    item = session.items[position]
    answer = session.answers().get(item.id)
    previous = None
    if answer is not None:
        event = answer.get("labelling", {}).get("event")
        previous = {"event": event, "label": answer.get("label"), "note": (answer.get("extra") or {}).get("note", "")}
    return (
        environment()
        .get_template("label_item.html.jinja")
        .render(
            item=item,
            position=position,
            total=len(session.items),
            metric=session.metric,
            scale=session.scale,
            rubric=session.rubric,
            annotator=session.annotator,
            counts=session.counts(),
            previous=previous,
            certificate=certificate,
        )
    )


def render_done(session: LabellingSession, certificate: str | None = None, decided: bool = False) -> str:
    return (
        environment()
        .get_template("label_done.html.jinja")
        .render(
            metric=session.metric,
            total=len(session.items),
            annotator=session.annotator,
            counts=session.counts(),
            out=str(session.out),
            certificate=certificate,
            decided=decided,
        )
    )


class LabelPages:
    """A queue labelled for one metric on its scale (`judgelab label serve QUEUE`); with a `watch`, the certificate's
    status on every page, and no more items once it is decided (`--until-decided`)."""

    def __init__(self, session: LabellingSession, watch: CertificateWatch | None = None) -> None:
        self.session, self.watch = session, watch

    def decided(self) -> bool:
        return self.watch is not None and self.watch.decided

    def _status(self) -> str | None:
        return None if self.watch is None else self.watch.status()

    def size(self) -> int:
        return len(self.session.items)

    def resume_position(self) -> int | None:
        return None if self.decided() else self.session.resume_position()

    def next_position(self, after: int) -> int | None:
        return None if self.decided() else self.session.next_position(after)

    def page(self, position: int) -> str:
        return self.done_page() if self.decided() else render_item(self.session, position, self._status())

    def done_page(self) -> str:
        return render_done(self.session, self._status(), self.decided())

    def submit(self, position: int, form: Mapping[str, str]) -> None:
        choice, note = form.get("choice", ""), form.get("note", "").strip() or None
        if choice in ("null", "skip"):
            self.session.record(position, choice, None, note)
        else:
            self.session.record(position, "label", float(choice), note)
        if self.watch is not None:
            self.watch.update()


def _handler(session: Pages, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "judgelab-label"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the terminal shows the URL only
            return None

        def _send(self, status: HTTPStatus, body: str = "", location: str | None = None) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _position(self, path: str) -> int | None:
            tail = path.removeprefix("/item/")
            if tail == path or not tail.isdigit() or int(tail) >= session.size():
                return None
            return int(tail)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path == "/":
                with lock:
                    position = session.resume_position()
                self._send(HTTPStatus.SEE_OTHER, location="/done" if position is None else f"/item/{position}")
            elif path == "/done":
                with lock:
                    self._send(HTTPStatus.OK, session.done_page())
            elif (position := self._position(path)) is not None:
                with lock:
                    self._send(HTTPStatus.OK, session.page(position))
            else:
                self._send(HTTPStatus.NOT_FOUND, "not found")

        def do_POST(self) -> None:
            position = self._position(urlsplit(self.path).path)
            length = int(self.headers.get("Content-Length") or 0)
            if position is None or length > MAX_FORM_BYTES:
                self._send(HTTPStatus.NOT_FOUND if position is None else HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
                return
            form = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode("utf-8")).items()}
            try:
                with lock:
                    session.submit(position, form)
                    following = session.next_position(position)
                    finished = isinstance(session, LabelPages) and session.decided()
                    done = session.done_page() if finished else ""
            except ValueError as err:
                self._send(HTTPStatus.BAD_REQUEST, f"cannot record this answer: {err}")
                return
            if finished:  # decided: the page says so, and the server ends the command
                self._send(HTTPStatus.OK, done)
                threading.Thread(target=self.server.shutdown, daemon=True).start()
                return
            self._send(HTTPStatus.SEE_OTHER, location="/done" if following is None else f"/item/{following}")

    return Handler


def make_server(session: LabellingSession | Pages, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1 (`port` 0: any free port; the bound one is `server.server_address[1]`)."""
    pages = LabelPages(session) if isinstance(session, LabellingSession) else session
    try:
        server = ThreadingHTTPServer((HOST, port), _handler(pages, threading.Lock()))
    except OSError as err:  # the port is taken, or reserved
        raise ConfigError(f"--port {port}: cannot listen on {HOST}:{port} ({err.strerror or err})") from None
    server.daemon_threads = True
    return server
