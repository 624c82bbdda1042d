"""Two full-screen clients, host and join, on loopback, each in a real terminal (tmux),
played by keys against each other through a whole turn."""

from __future__ import annotations

import os
import re
import shlex
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay

from .tmux import Tmux

GAME_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def second_tmux(tmp_path: Path) -> Iterator[Tmux]:
    server = Tmux(f"dbnet-test-{os.getpid()}-second", tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def launch(tmux: Tmux, home: Path, *args: str) -> None:
    command = [sys.executable, "-m", "dbnet", *args]
    tmux.type(f"DBNET_HOME={shlex.quote(str(home))} {shlex.join(command)}; echo EXIT=$?")
    tmux.keys("Enter")


def wait_until(tmux: Tmux, pattern: str) -> str:
    """Poll the pane until ``pattern`` (a regular expression) matches it."""
    deadline = time.monotonic() + 20
    while not re.search(pattern, pane := tmux.pane()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{pattern!r} never matched; the pane:\n{pane}")
        time.sleep(0.1)
    return pane


def step(tmux: Tmux, prompt: str) -> bool:
    """Answer what this client's screen asks, if anything: confirm the end of a phase, or
    play the first legal choice (Down, Enter). Whether a key was sent."""
    pane = tmux.pane()
    if "[y] yes" in pane:
        tmux.keys("y")
        return True
    if "Your decision: " in pane and re.search(rf"^{prompt}> *$", pane, re.MULTILINE):
        tmux.keys("Down", "Enter")
        return True
    return False


def test_host_and_join_play_a_game_by_keys(tmux: Tmux, second_tmux: Tmux, tmp_path: Path) -> None:
    port = free_port()
    host_replay, join_replay = tmp_path / "host.dbnr", tmp_path / "join.dbnr"
    launch(
        tmux, tmp_path / "alice", "host", "--port", str(port), "--name", "alice",
        "--replay", str(host_replay),
    )  # fmt: skip
    tmux.wait_for("listening on port")
    launch(
        second_tmux, tmp_path / "bob", "join", f"127.0.0.1:{port}", "--name", "bob",
        "--replay", str(join_replay),
    )  # fmt: skip
    # the connection state on top, the opponent's name and key fingerprint on its seat line
    fingerprint = r"[A-Z2-7]{4}(-[A-Z2-7]{4}){3}"
    wait_until(tmux, rf"\[connected to bob\][\s\S]*B bob {fingerprint}")
    wait_until(second_tmux, rf"\[connected to alice\][\s\S]*A alice {fingerprint}")
    deadline = time.monotonic() + GAME_TIMEOUT
    plays = 0
    while not all(re.search(r"Turn 2|The game is over", t.pane()) for t in (tmux, second_tmux)):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"turn 1 did not end after {plays} plays;\nhost:\n{tmux.pane()}\n"
                f"join:\n{second_tmux.pane()}"
            )
        plays += step(tmux, "A") + step(second_tmux, "B")
        time.sleep(0.1)  # a polling interval: the loop goes on when a pane changes
    assert plays >= 10  # both players decided their spawns and all eight action phases
    for client in (tmux, second_tmux):
        client.type("quit")
        client.keys("Enter")
        if "The game is over" not in client.pane():
            client.wait_for("Quit? This game will be abandoned.")
            client.keys("y")
        client.wait_for("EXIT=0")
        assert "Replay saved (" in client.text()
    host_records = load_replay(host_replay).records
    join_records = load_replay(join_replay).records
    for path in (host_replay, join_replay):
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status in (VerdictStatus.UNFINISHED, VerdictStatus.COMPLETE), verdict
    shorter = min(len(host_records), len(join_records))
    assert shorter > 20  # a whole turn of entries
    assert host_records[:shorter] == join_records[:shorter]  # one game, the same entries
