"""Open an HTML file in headless Chromium, take a screenshot and collect console errors.

Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages
separated by NUL bytes on file descriptors 3 and 4), so no port, no websocket library and no
network are needed. Collected as errors: `console.error`/`console.assert` calls, uncaught
exceptions, and browser log entries of level error (e.g. a resource that failed to load). Any
request to a non-`file:`/`data:` URL is listed too, because reports must be self-contained.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


class BrowserUnavailable(RuntimeError):
    """No Chromium binary was found (install Debian's `chromium` package)."""


@dataclass
class BrowserCheck:
    """What Chromium saw when it rendered a page."""

    console_errors: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    svg_count: int = 0
    title: str = ""

    @property
    def ok(self) -> bool:
        """True when the page loaded, took a screenshot, logged no error and fetched nothing external."""
        return self.screenshot is not None and not self.console_errors and not self.external_requests


def find_chromium() -> str:
    """Path of the Chromium binary, or raise `BrowserUnavailable`."""
    for candidate in CHROMIUM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("chromium")
    if found:
        return found
    raise BrowserUnavailable("chromium not found; install it with `apt-get install chromium`")


class _Pipe:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.proc = proc
        self.out = to_browser
        self.inp = from_browser
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        return self.next_id

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.inp], [], [], remaining)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.inp, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the debugging pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(raw)
        return parsed

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Send a command and wait for its result, keeping events that arrive meanwhile."""
        ident = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method: str, timeout: float) -> bool:
        """Wait until an event named `method` has arrived; False on timeout."""
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            try:
                message = self._read_message(deadline)
            except TimeoutError:
                return False
            if "method" in message:
                self.events.append(message)
        return True


def _describe_errors(events: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Console errors and external requests found in the collected DevTools events."""
    errors: list[str] = []
    external: list[str] = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = params.get("args", [])
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append(
                str(details.get("exception", {}).get("description") or details.get("text", "exception"))
            )
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"{entry.get('text', '')} {entry.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            url = str(params.get("request", {}).get("url", ""))
            if not url.startswith(("file:", "data:", "about:")):
                external.append(url)
    return errors, external


def _inspect(pipe: _Pipe, url: str, screenshot_png: Path, width: int, settle_s: float) -> BrowserCheck:
    target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime.enable", "Log.enable", "Page.enable", "Network.enable"):
        pipe.call(domain, session=session)
    pipe.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    pipe.call("Page.navigate", {"url": url}, session=session)
    pipe.wait_event("Page.loadEventFired", timeout=30.0)
    pipe.wait_event("__settle__", timeout=settle_s)  # let late console messages arrive
    probe = pipe.call(
        "Runtime.evaluate",
        {
            "expression": "JSON.stringify([document.querySelectorAll('svg').length, document.title,"
            " document.documentElement.scrollHeight])",
            "returnByValue": True,
        },
        session=session,
    )
    svg_count, title, height = json.loads(probe["result"]["value"])
    shot = pipe.call(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": min(int(height), 16000), "scale": 1},
        },
        session=session,
    )
    screenshot_png.parent.mkdir(parents=True, exist_ok=True)
    screenshot_png.write_bytes(base64.b64decode(shot["data"]))
    errors, external = _describe_errors(pipe.events)
    return BrowserCheck(errors, external, screenshot_png, int(svg_count), str(title))


def check_in_chromium(
    html_path: Path,
    screenshot_png: Path,
    *,
    width: int = 1200,
    settle_s: float = 0.5,
    timeout_s: float = 60.0,
) -> BrowserCheck:
    """Render `html_path` in headless Chromium; screenshot the whole page to `screenshot_png`.

    Uses a fresh throw-away profile each time. Raises `BrowserUnavailable` when Chromium is not
    installed and `RuntimeError`/`TimeoutError` when it misbehaves.
    """
    binary = find_chromium()
    url = html_path.resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="gpuplane-chromium-") as profile:
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()

        def wire_fds() -> None:  # the protocol expects the pipe on fds 3 (in) and 4 (out)
            high_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            high_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        proc = subprocess.Popen(
            [binary, *_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds,
            close_fds=False,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        pipe = _Pipe(proc, to_browser_w, from_browser_r)
        try:
            return _inspect(pipe, url, screenshot_png, width, min(settle_s, timeout_s))
        finally:
            _close(pipe)


def _close(pipe: _Pipe) -> None:
    """Ask Chromium to exit, then make sure it did; close our pipe ends."""
    with contextlib.suppress(OSError):
        pipe.send("Browser.close")
    try:
        pipe.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pipe.proc.kill()
        pipe.proc.wait(timeout=10)
    os.close(pipe.out)
    os.close(pipe.inp)
