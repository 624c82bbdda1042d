"""The players' chat in the full-screen client (issue 30, item 14): host and join full
screen on loopback, each in a real terminal (tmux). The host writes in the chat line of
its own (Ctrl-T: it takes the entry's row; Enter sends; Escape back), the joiner with
``say TEXT`` in the entry; each sees the other's line in the log with the sender's
name, and the chat files beside both replays verify."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from dbnet.protocol.chat import chat_path

from .test_network_terminal import free_port, launch, second_tmux, wait_until
from .tmux import Tmux

__all__ = ["second_tmux"]  # the fixture, used here by name


def until_said(tmux: Tmux, send: list[str], pattern: str) -> None:
    """Send ``send`` (keys) until ``pattern`` shows: a line said before the game started is
    refused ("not connected") and said again."""
    deadline = time.monotonic() + 30
    while True:
        tmux.keys(*send)
        try:
            wait_until(tmux, pattern)
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise


def test_players_chat_full_screen(tmux: Tmux, second_tmux: Tmux, tmp_path: Path) -> None:
    port = free_port()
    host_replay, join_replay = tmp_path / "host.dbnr", tmp_path / "join.dbnr"
    launch(
        tmux, tmp_path / "alice", "host", "--port", str(port), "--open", "--name", "alice",
        "--replay", str(host_replay),
    )  # fmt: skip
    tmux.wait_for("listening on port")
    launch(
        second_tmux, tmp_path / "bob", "join", f"127.0.0.1:{port}", "--name", "bob",
        "--replay", str(join_replay),
    )  # fmt: skip
    wait_until(tmux, r"\[connected to bob via direct\]")
    wait_until(second_tmux, r"\[connected to alice via direct\]")
    # the host: the chat line of its own, in the entry's row
    tmux.keys("C-t")
    wait_until(tmux, r"(?m)^say> *$")
    until_said(tmux, ["g", "o", "o", "d", "Space", "l", "u", "c", "k", "Enter"],
               r"alice \(you\) says: good luck")  # fmt: skip
    wait_until(second_tmux, r"alice says: good luck")
    tmux.keys("Escape")  # back to the entry
    # the joiner: say TEXT in the entry
    second_tmux.type("say thanks, alice")
    until_said(second_tmux, ["Enter"], r"bob \(you\) says: thanks, alice")
    wait_until(tmux, r"bob says: thanks, alice")
    for client in (tmux, second_tmux):
        client.type("quit")
        client.keys("Enter")
        client.wait_for("Quit? The game is saved")
        client.keys("y")
        client.wait_for("EXIT=")
    for path in (host_replay, join_replay):
        lines = chat_path(path).read_text().splitlines()
        assert [re.search(r'"text": "([^"]*)"', line)[1] for line in lines] == [  # type: ignore[index]
            "good luck", "thanks, alice"
        ]  # fmt: skip
        result = subprocess.run(
            [sys.executable, "-m", "dbnet", "verify", str(path)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert "2 chat lines, each signed by its sender" in result.stdout, result.stdout
