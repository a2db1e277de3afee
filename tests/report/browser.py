"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: the browser reads
commands from fd 3 and writes to fd 4, each message JSON ended by a NUL byte), standard library only.

`open_page` loads one file and returns what a reviewer of the page needs: the requests the page made, the console
errors and exceptions, and a PNG screenshot."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageVisit:
    requests: list[str] = field(default_factory=list)  # every URL the page asked for, the page itself included
    console_errors: list[str] = field(default_factory=list)
    screenshot: bytes = b""


class _Pipe:
    def __init__(self, to_browser: int, from_browser: int) -> None:
        self.write_fd, self.read_fd = to_browser, from_browser
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, deadline: float, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result") or {})
            self.events.append(reply)

    def wait_for(self, method: str, deadline: float) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return dict(json.loads(message))


def open_page(chromium: str, page: Path, *, timeout_s: float = 60.0, width: int = 1200, height: int = 1600,
              scale: float = 1.0) -> PageVisit:
    """Load `page` (a file) in a fresh headless Chromium with no network services, and report what it did; the
    screenshot covers the top `width` x `height` pixels of the page, scaled by `scale`."""
    deadline = time.monotonic() + timeout_s
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def child_fds() -> None:  # the protocol's fixed descriptors: commands on 3, answers on 4
        import fcntl

        commands, answers = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w))
        os.dup2(commands, 3)
        os.dup2(answers, 4)

    with tempfile.TemporaryDirectory(prefix="code-intel-chromium-") as profile:
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
                "--disable-default-apps", "--no-default-browser-check", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, preexec_fn=child_fds,
                                   pass_fds=(3, 4))  # kept open after child_fds set them
        os.close(to_browser_r)
        os.close(from_browser_w)
        pipe = _Pipe(to_browser_w, from_browser_r)
        try:
            targets = pipe.call("Target.getTargets", deadline)["targetInfos"]
            target = next(t["targetId"] for t in targets if t.get("type") == "page")
            session = pipe.call("Target.attachToTarget", deadline, targetId=target, flatten=True)["sessionId"]
            for domain in ("Page", "Network", "Runtime", "Log"):
                pipe.call(f"{domain}.enable", deadline, session)
            pipe.call("Emulation.setDeviceMetricsOverride", deadline, session, width=width, height=height,
                      deviceScaleFactor=1, mobile=False)
            pipe.call("Page.navigate", deadline, session, url=page.resolve().as_uri())
            pipe.wait_for("Page.loadEventFired", deadline)
            clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
            shot = pipe.call("Page.captureScreenshot", deadline, session, format="png", clip=clip)
            visit = PageVisit(screenshot=base64.b64decode(shot["data"]))
            for event in pipe.events:
                method, params = event.get("method"), event.get("params") or {}
                if method == "Network.requestWillBeSent":
                    visit.requests.append(str(params.get("request", {}).get("url")))
                elif method == "Runtime.exceptionThrown":
                    visit.console_errors.append(json.dumps(params.get("exceptionDetails"))[:500])
                elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                    visit.console_errors.append(json.dumps(params.get("args"))[:500])
                elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                    visit.console_errors.append(str(params["entry"].get("text"))[:500])
            with_timeout = max(1.0, deadline - time.monotonic())
            try:
                pipe.call("Browser.close", time.monotonic() + min(5.0, with_timeout))
            except (RuntimeError, TimeoutError):
                pass
            return visit
        finally:
            os.close(to_browser_w)
            os.close(from_browser_r)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def png_colours(data: bytes, sample: int = 4096) -> int:
    """How many distinct colours a sample of the PNG's pixels holds (1 for a blank page); standard library only."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, colour_type = header[0], header[1], header[2], header[3]
    assert depth == 8 and colour_type in (2, 6), f"unexpected PNG format {depth}/{colour_type}"
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    step = max(1, (width * height) // sample)
    colours = set()
    for index in range(0, width * height, step):
        row, col = divmod(index, width)
        colours.add(bytes(rows[row][col * channels:col * channels + 3]))
    return len(colours)
