"""``dbnet watch`` full screen in a real terminal (tmux): a spectator's quit box speaks
to a spectator, who abandons nothing."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .tmux import Tmux

FINGERPRINT = re.compile(r"fingerprint is ([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})")
PORT = re.compile(r"listening on port (\d+)")


def test_the_spectator_s_quit_box_says_the_game_goes_on(tmux: Tmux, tmp_path: Path) -> None:
    log = tmp_path / "host.log"
    hosting = [
        sys.executable, "-m", "dbnet", "host", "--port", "0", "--address", "127.0.0.1",
        "--bot", "greedy", "--plain", "--spectators", "1", "--name", "alice",
        "--replay", str(tmp_path / "alice.dbnr"),
    ]  # fmt: skip
    with log.open("wb") as out:
        host = subprocess.Popen(
            hosting,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "DBNET_HOME": str(tmp_path / "alice")},
        )
    try:
        deadline = time.monotonic() + 20
        while not (PORT.search(text := log.read_text()) and FINGERPRINT.search(text)):
            assert host.poll() is None, text
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        port, fingerprint = PORT.search(text), FINGERPRINT.search(text)
        assert port is not None
        assert fingerprint is not None
        command = [
            sys.executable, "-m", "dbnet", "watch", f"127.0.0.1:{port.group(1)}",
            "--expect", fingerprint.group(1), "--replay", str(tmp_path / "eve.dbnr"),
        ]  # fmt: skip
        tmux.type(shlex.join(command) + "; echo EXIT=$?")
        tmux.keys("Enter")
        tmux.wait_for("Welcome to dbnet")
        tmux.keys("C-q")
        pane = tmux.wait_for("Stop watching? The game goes on without you.")
        assert "abandoned" not in pane
        tmux.keys("y")
        tmux.wait_for("EXIT=")
        text = tmux.text()
        assert "Stopped watching; the game goes on without you." in text
        assert "abandoned" not in text
    finally:
        host.kill()
        host.wait(timeout=10)


def test_the_full_screen_watch_refuses_stay_in_one_line(tmux: Tmux, tmp_path: Path) -> None:
    """``--stay`` is for the line interface: at a terminal without ``--plain`` it is refused
    in one line before anything is connected (exit code 2)."""
    from .test_network_terminal import launch, wait_until

    launch(tmux, tmp_path / "home", "watch", "127.0.0.1:9", "--expect", "AAAA-AAAA-AAAA-AAAA",
           "--stay")  # fmt: skip
    wait_until(tmux, "EXIT=2")
    said = [line for line in tmux.text().splitlines() if "--stay is" in line]
    assert said == [
        "dbnet watch: --stay is for the line interface (--plain): the full-screen watch ends "
        "with its game"
    ]
