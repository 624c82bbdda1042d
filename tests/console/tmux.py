"""A tmux server of the tests' own, to run the real program in a real terminal."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

TIMEOUT = 20.0


class Tmux:
    """A detached tmux server of our own (its own socket) running a shell at 80x24."""

    def __init__(self, name: str, cwd: Path) -> None:
        self.socket = name
        self.cwd = cwd

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=True,
        )
        return result.stdout

    def start(self, columns: int = 80, rows: int = 24) -> None:
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("NO_COLOR", None)
        size = ["-x", str(columns), "-y", str(rows)]
        where = ["-s", "t", "-c", str(self.cwd)]
        shell = "bash --norc --noprofile"
        subprocess.run(
            [
                "tmux",
                "-L",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                *size,
                *where,
                shell,
            ],
            env=env,
            check=True,
            timeout=TIMEOUT,
        )

    def resize(self, columns: int, rows: int) -> None:
        """Make the terminal ``columns`` by ``rows`` (the program gets SIGWINCH)."""
        self.run("resize-window", "-t", "t", "-x", str(columns), "-y", str(rows))

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "t", "-l", text)

    def pane(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def text(self) -> str:
        """The pane and its history, the lines the terminal wrapped joined again (for
        printed output)."""
        return self.run("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def wait_for(self, text: str) -> str:
        """Poll the pane until ``text`` is on it; fail with the pane after TIMEOUT seconds."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            pane = self.pane()
            if text in pane:
                return pane
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the pane:\n{pane}")
            time.sleep(0.1)

    def kill(self) -> None:
        """Stop our server and remove its socket file (tmux leaves it behind)."""
        tmux = ["tmux", "-L", self.socket]
        where = subprocess.run(
            [*tmux, "display-message", "-p", "#{socket_path}"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        path = where.stdout.strip()
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10)
        if path:
            Path(path).unlink(missing_ok=True)
