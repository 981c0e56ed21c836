"""An async Chrome DevTools Protocol client (aiohttp websockets) for the labelling page test: type, click, reload."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from cdp import CHROMIUM, FLAGS
from conftest import hang_guard

KEYS = {"ArrowLeft": ("ArrowLeft", 37)}


class Page:
    """One page target: send commands, evaluate JavaScript, wait for a condition, press keys."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.next_id = 0

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        await self.socket.send_json({"id": ident, "method": method, "params": params})
        while True:
            message = json.loads((await self.socket.receive()).data)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        deadline = time.monotonic() + hang_guard(timeout)
        while time.monotonic() < deadline:
            with contextlib.suppress(RuntimeError):
                value = await self.evaluate(f"document.readyState === 'complete' && ({expression})")
                if value:
                    return value
            await asyncio.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}; page: {await self.evaluate('location.href')}")

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)

    async def press(self, key: str) -> None:
        """A real key press (keyDown then keyUp) dispatched by the browser's input pipeline."""
        code, vk = KEYS.get(key, (f"Key{key.upper()}" if key.isalpha() else f"Digit{key}", ord(key.upper()[0])))
        text = {} if key in KEYS else {"text": key}
        await self.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk, **text)
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)

    async def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = await self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView(); "
            "const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    async def text(self) -> str:
        return str(await self.evaluate("document.body.innerText"))


@contextlib.asynccontextmanager
async def browser(profile: Path) -> AsyncIterator[Page]:
    """Headless Chromium on a fresh profile, with DevTools on a free loopback port; yields its first page."""
    import aiohttp

    assert CHROMIUM is not None
    process = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + hang_guard(60)
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError("chromium did not open its DevTools port")
            await asyncio.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = await response.json()
            url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            async with http.ws_connect(url, max_msg_size=0) as socket:
                page = Page(socket)
                await page.send("Page.enable")
                yield page
    finally:
        process.terminate()
        try:
            process.wait(timeout=hang_guard(10))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
