"""Debian's headless ``chromium`` for the page tests, in a network namespace that has only
loopback, with every wait bounded.

- ``chromium_command()`` finds the browser and the namespace, or skips the test with
  what to install (under CI, where every part is installed, fails it: tests/system.py).
- ``screenshot()`` and ``dump_dom()`` run ``chromium --headless --screenshot`` and
  ``--dump-dom``.
- ``Browser`` drives one page over ``--remote-debugging-pipe`` (the DevTools protocol as
  NUL-terminated JSON on file descriptors 3 and 4): it loads a page, presses keys,
  evaluates JavaScript, and records every network request the page asks for.
- ``png_pixels()`` decodes a PNG in pure Python (zlib and the five row filters), so a
  screenshot can be checked for more than its size.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Final

from system import BROWSER, require, which

TIMEOUT: Final = 60.0
"""Seconds any one browser run or protocol answer may take."""

FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--mute-audio",
)

# Runs inside the new network namespace: bring loopback up (the namespace then has
# loopback and nothing else), put the protocol pipes on descriptors 3 and 4, and become
# chromium.
_LAUNCH: Final = """\
import os, subprocess, sys
subprocess.run(["ip", "link", "set", "lo", "up"], check=False, timeout=10)
pipes = [int(fd) for fd in sys.argv[1:3]]
for wanted, fd in zip((3, 4), pipes):
    if fd >= 0:
        os.dup2(fd, wanted)
os.execvp(sys.argv[3], sys.argv[3:])
"""


def chromium_command() -> list[str]:
    """The start of every browser command line: ``unshare -n`` (a network namespace with
    only loopback) and the launcher; without them the test is skipped (failed under CI)
    with what to install."""
    require(BROWSER, "the browser tests")
    unshare = which("unshare")
    assert unshare is not None  # BROWSER holds it
    return [unshare, "-n", "--", sys.executable, "-c", _LAUNCH]


def _run(args: list[str], profile: Path) -> subprocess.CompletedProcess[bytes]:
    command = [*chromium_command(), "-1", "-1", "chromium", *FLAGS, f"--user-data-dir={profile}"]
    return subprocess.run(
        [*command, *args], capture_output=True, timeout=TIMEOUT, check=False, env=_env()
    )


def _env() -> dict[str, str]:
    return {**os.environ, "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"}


def screenshot(url: str, png: Path, size: tuple[int, int], profile: Path) -> bytes:
    """``chromium --headless --screenshot`` of ``url`` at ``size`` (width, height): the PNG."""
    done = _run([f"--screenshot={png}", f"--window-size={size[0]},{size[1]}", url], profile)
    assert png.exists(), f"no screenshot; chromium said: {done.stderr.decode(errors='replace')}"
    return png.read_bytes()


def dump_dom(url: str, profile: Path) -> str:
    """``chromium --headless --dump-dom``: the document after its scripts ran at load."""
    done = _run(["--dump-dom", url], profile)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode("utf-8")


# --- the DevTools protocol over a pipe ----------------------------------------------------


@dataclass
class Browser:
    """One headless chromium and one page in it, over ``--remote-debugging-pipe``."""

    profile: Path
    requests: list[dict[str, object]] = field(default_factory=list)
    failures: list[dict[str, object]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    loaded: int = 0

    def __post_init__(self) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        command = [*chromium_command(), str(to_browser), str(from_browser), "chromium"]
        command += [*FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe"]
        self.proc = subprocess.Popen(
            [*command, "about:blank"],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_env(),
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._answers: dict[int, dict[str, object]] = {}
        target = self._page_target()
        answer = self.call("Target.attachToTarget", targetId=target, flatten=True)
        self.session = str(answer["sessionId"])
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=self.session)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self._send({"id": self._new_id(), "method": "Browser.close"})
            self.proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()  # only the browser this object started
            self.proc.wait(timeout=15)
        finally:
            for fd in (self._read, self._write):
                with contextlib.suppress(OSError):
                    os.close(fd)

    # --- what the tests do --------------------------------------------------------------

    def load(self, url: str) -> None:
        """Open ``url`` and wait for its load event."""
        before = self.loaded
        self.call("Page.navigate", session=self.session, url=url)
        self._wait(lambda: self.loaded > before, f"the load event of {url}")

    def press(self, key: str) -> None:
        """Press and release ``key`` (``ArrowRight``, ``Home``, ...) as a keyboard would."""
        code = _KEY_CODES[key]
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                session=self.session,
                type=kind,
                key=key,
                code=key,
                windowsVirtualKeyCode=code,
                nativeVirtualKeyCode=code,
            )

    def evaluate(self, expression: str) -> object:
        """The value of a JavaScript expression in the page (JSON values only)."""
        answer = self.call(
            "Runtime.evaluate", session=self.session, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression!r} failed: {answer['exceptionDetails']}")
        result = answer["result"]
        assert isinstance(result, dict)
        return result.get("value")

    def capture(self) -> bytes:
        """A PNG of the page as it is now."""
        answer = self.call("Page.captureScreenshot", session=self.session, format="png")
        return base64.b64decode(str(answer["data"]))

    # --- the protocol ---------------------------------------------------------------------

    def call(
        self, method: str, *, session: str | None = None, **params: object
    ) -> dict[str, object]:
        """Send one command and wait (bounded) for its answer, noting events meanwhile."""
        number = self._new_id()
        message: dict[str, object] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._send(message)
        self._wait(lambda: number in self._answers, f"the answer to {method}")
        answer = self._answers.pop(number)
        if "error" in answer:
            raise AssertionError(f"{method} failed: {answer['error']}")
        result = answer.get("result", {})
        assert isinstance(result, dict)
        return result

    def _page_target(self) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            infos = self.call("Target.getTargets")["targetInfos"]
            assert isinstance(infos, list)
            for info in infos:
                if info.get("type") == "page":
                    return str(info["targetId"])
            time.sleep(0.1)
        raise AssertionError("chromium opened no page")

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _send(self, message: dict[str, object]) -> None:
        os.write(self._write, json.dumps(message).encode() + b"\0")

    def _wait(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not done():
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise AssertionError(f"chromium gave no {what} within {TIMEOUT:.0f} s")
            for message in self._messages(left):
                self._note(message)

    def _messages(self, timeout: float) -> Iterator[dict[str, object]]:
        ready, _, _ = select.select([self._read], [], [], min(timeout, 1.0))
        if ready:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise AssertionError("chromium closed the protocol pipe")
            self._buffer += chunk
        while b"\0" in self._buffer:
            raw, _, self._buffer = self._buffer.partition(b"\0")
            message = json.loads(raw)
            assert isinstance(message, dict)
            yield message

    def _note(self, message: dict[str, object]) -> None:
        number = message.get("id")
        if isinstance(number, int):
            self._answers[number] = message
            return
        method = message.get("method")
        params = message.get("params")
        if not isinstance(params, dict):
            return
        if method == "Page.loadEventFired":
            self.loaded += 1
        elif method == "Network.requestWillBeSent":
            self.requests.append(params)
        elif method == "Network.loadingFailed":
            self.failures.append(params)
        elif method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails")))
        elif method == "Log.entryAdded":
            entry = params.get("entry")
            if isinstance(entry, dict) and entry.get("level") == "error":
                self.errors.append(str(entry.get("text")))


_KEY_CODES: Final = {
    "ArrowLeft": 37,
    "ArrowUp": 38,
    "ArrowRight": 39,
    "ArrowDown": 40,
    "Home": 36,
    "End": 35,
    "PageUp": 33,
    "PageDown": 34,
}


def new_profile() -> Path:
    """A fresh, empty browser profile folder (the caller removes it)."""
    return Path(tempfile.mkdtemp(prefix="dbnet-chromium-"))


# --- PNG -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pixels:
    width: int
    height: int
    channels: int
    rows: list[bytes]

    def colours(self) -> set[bytes]:
        """Every different pixel value."""
        c = self.channels
        return {row[i : i + c] for row in self.rows for i in range(0, len(row), c)}

    def share_unlike(self, background: bytes) -> float:
        """The share of pixels that differ from ``background``."""
        c = self.channels
        total = self.width * self.height
        same = sum(
            1 for row in self.rows for i in range(0, len(row), c) if row[i : i + c] == background
        )
        return (total - same) / total


def png_pixels(data: bytes) -> Pixels:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8, header
    assert colour in (2, 6), header
    assert interlace == 0, header
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for r in range(height):
        start = r * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return Pixels(width, height, channels, rows)


def _unfilter(kind: int, line: bytearray, up: bytearray, bpp: int) -> None:
    n = len(line)
    if kind == 0:
        return
    if kind == 1:
        for i in range(bpp, n):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 2:
        for i in range(n):
            line[i] = (line[i] + up[i]) & 0xFF
    elif kind == 3:
        for i in range(n):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + up[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = up[i]
            c = up[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 0xFF
    else:
        raise AssertionError(f"PNG row filter {kind}")
