"""A small Chrome DevTools Protocol client for the page tests: headless Chromium, a page, evaluate, click, screenshot."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from conftest import hang_guard, stop

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Page:
    """One tab of a headless Chromium started for a test (`async with Page(profile) as page`)."""

    def __init__(self, profile: Path, size: tuple[int, int] = (1280, 1600)) -> None:
        self.profile, self.size = profile, size
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    async def __aenter__(self) -> Page:
        import aiohttp

        assert CHROMIUM is not None
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                f"--window-size={self.size[0]},{self.size[1]}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + hang_guard(60)
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert time.monotonic() < deadline, "Chromium did not open its DevTools port"
            await asyncio.sleep(0.1)
        port = port_file.read_text().split()[0]
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            targets = json.loads(await response.text())
        target = next(t for t in targets if t["type"] == "page")
        self.socket = await self.session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        await self.send("Page.enable")
        await self.send("Runtime.enable")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()
        await self.session.close()
        stop(self.process)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        call = next(self.ids)
        await self.socket.send_str(json.dumps({"id": call, "method": method, "params": params}))
        while True:
            message = json.loads((await self.socket.receive(timeout=hang_guard(60))).data)
            if message.get("id") == call:
                assert "error" not in message, message
                return dict(message["result"])
            self.events.append(message)

    async def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(json.loads((await self.socket.receive(timeout=hang_guard(60))).data))
        self.events = [e for e in self.events if e.get("method") != event]

    async def goto(self, url: str) -> None:
        self.events.clear()
        await self.send("Page.navigate", url=url)
        await self.wait_for("Page.loadEventFired")

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    async def click(self, selector: str) -> None:
        """A real mouse click at the middle of the element (scrolled into view first)."""
        box = await self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    async def screenshot(self, path: Path) -> Path:
        data = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(data["data"]))
        return path
