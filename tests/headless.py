"""Headless Chromium for tests, driven over the DevTools protocol on a pipe (no extra package):
open a page at a given screen width, measure it, take a screenshot.

One browser serves a whole test (starting it is the slow part); `Browser.look` sets the screen
size (a phone with mobile emulation, so that a page without a viewport meta is laid out 980 px
wide as a phone would), loads the file and returns what was measured.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
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
# What the page says of its width, and the widest elements sticking out past the screen.
MEASURE = """(() => {
  const root = document.documentElement, width = root.clientWidth;
  const sticks = e => e.getBoundingClientRect().right > width + 1
    || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible');
  const wide = [...document.querySelectorAll('body *')]
    .filter(e => !e.parentElement.closest('table')).filter(sticks).filter(e => ![...e.children].some(sticks))
    .slice(0, 5).map(e => e.tagName.toLowerCase() + ': ' + (e.textContent || '').trim().slice(0, 60));
  return JSON.stringify({scrollWidth: root.scrollWidth, clientWidth: width, innerWidth: window.innerWidth,
    height: root.scrollHeight, wide});
})()"""


def find_chromium() -> str | None:
    """Return the path of a Chromium on this machine, or None."""
    return next((path for name in CHROMIUM if (path := shutil.which(name))), None)


@dataclass(frozen=True)
class Look:
    """A page as it was laid out at one screen size."""

    scroll_width: int  # the width of the page's content
    client_width: int  # the width of the screen the page is laid out in
    inner_width: int  # the layout viewport (980 on a phone when the page has no viewport meta)
    wide: list[str]  # the innermost elements sticking out past the screen

    @property
    def overflows(self) -> bool:
        """True when the page scrolls sideways."""
        return self.scroll_width > self.client_width


class Browser:
    """One headless Chromium, spoken to over fds 3 and 4 (`--remote-debugging-pipe`)."""

    def __init__(self, chromium: str) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="headless-")
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()

        def on_fds_3_and_4() -> None:
            # Out of the way first (either end may be fd 3 or 4 already), then onto 3 and 4,
            # inheritable; every other descriptor of ours is close-on-exec (PEP 446).
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [chromium, *FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=on_fds_3_and_4,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (events met on the way are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer["result"]
                return result

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def look(self, page: Path, width: int, height: int, screenshot: Path | None = None) -> Look:
        """Lay out `page` on a screen of `width` x `height` CSS pixels (a phone's, with mobile
        emulation, below 800) and return what it measured; save a screenshot of the whole page if asked."""
        mobile = width < 800
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=mobile,
        )
        self.call("Page.navigate", session=True, url=page.resolve().as_uri())
        ready = "document.readyState === 'complete'"
        while not self.call("Runtime.evaluate", session=True, expression=ready)["result"]["value"]:
            pass
        measured = json.loads(self.call("Runtime.evaluate", session=True, expression=MEASURE)["result"]["value"])
        if screenshot is not None:
            # The whole page, not only the screen's first height: what scrolls down is read too.
            whole = {"x": 0, "y": 0, "width": width, "height": min(measured["height"], 16000), "scale": 1}
            shot = self.call(
                "Page.captureScreenshot", session=True, format="png", clip=whole, captureBeyondViewport=True
            )
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        return Look(measured["scrollWidth"], measured["clientWidth"], measured["innerWidth"], measured["wide"])

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._answers)
        self.profile.cleanup()
