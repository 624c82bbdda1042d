"""The real program in a real terminal: tmux at 80x24, keys sent, the pane read back."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

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

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "t", "-l", text)

    def pane(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

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


@pytest.fixture
def tmux(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "these tests need tmux"
    server = Tmux(f"dbnet-test-{os.getpid()}-{request.node.name}"[:80], tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def start_game(tmux: Tmux, *args: str) -> None:
    command = [sys.executable, "-m", "dbnet.console", "--seed", "3", "--bot-delay", "0", *args]
    tmux.type(shlex.join(command) + "; echo EXIT=$?")
    tmux.keys("Enter")
    tmux.wait_for("Your decision: A to spawn")


def assert_terminal_usable(tmux: Tmux) -> None:
    """The shell reads lines again: canonical mode and echo are back on (stty shows
    ``-icanon`` or ``-echo`` when they are off)."""
    tmux.type("echo OFF=$(stty -a | grep -o -w -e -icanon -e -echo | wc -l)")
    tmux.keys("Enter")
    tmux.wait_for("OFF=0\n")


def test_play_in_a_real_terminal(tmux: Tmux) -> None:
    start_game(tmux)
    pane = tmux.pane()
    lines = pane.splitlines()
    assert lines[0].startswith(" Turn 1, spawn phase of A, B went first")
    assert "B:a-brute" in pane  # the bot's spawn is on the board
    assert "A reserves (7 pts)" in pane

    # an illegal entry is answered with the engine's reason
    tmux.type("spawn lantern-page#1 a1")
    tmux.keys("Enter")
    tmux.wait_for("Not played: 'spawn lantern-page#1 a1' is not legal now")

    # a legal one is played and drawn: the token in e1, row 1's last cell
    tmux.keys("C-u")
    tmux.type("spawn lantern-page#1 e1")
    tmux.keys("Enter")
    pane = tmux.wait_for("Played: spawn lantern-page#1 e1")
    row1 = next(line for line in pane.splitlines() if line.startswith("1 |"))
    assert row1.split("|")[5].strip() == "A:l-page#1"

    # quit asks first, then leaves the terminal as it found it
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("Quit? This game will be abandoned.")
    tmux.keys("y")
    pane = tmux.wait_for("EXIT=0")
    assert "Game abandoned." in pane
    assert_terminal_usable(tmux)


def test_ctrl_c_leaves_a_usable_terminal(tmux: Tmux) -> None:
    start_game(tmux)
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
    assert_terminal_usable(tmux)
