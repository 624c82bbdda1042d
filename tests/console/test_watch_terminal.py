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
JOIN = re.compile(r"dbnet join (DB\w+)")
WATCH = re.compile(r"dbnet watch (DB\w+)")


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


def test_the_full_screen_watch_stays_for_the_players_next_game(tmux: Tmux, tmp_path: Path) -> None:
    """``dbnet watch --stay`` full screen: two bots play a game and a rematch; the same
    screen shows the next game (the log says so and names its replay, the top bar names
    it), and both of the spectator's replays verify and are byte for byte the host's."""
    log = tmp_path / "host.log"
    joined = tmp_path / "join.log"
    hosting = [
        sys.executable, "-m", "dbnet", "host", "--port", "0", "--address", "127.0.0.1",
        "--bot", "greedy", "--plain", "--spectators", "1", "--name", "alice", "--rematch", "1",
        "--turns-to-win", "1", "--replay", str(tmp_path / "alice.dbnr"),
    ]  # fmt: skip
    from .test_network_terminal import launch, wait_until

    started: list[subprocess.Popen[bytes]] = []
    try:
        with log.open("wb") as out:
            started.append(subprocess.Popen(
                hosting, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "DBNET_HOME": str(tmp_path / "alice")},
            ))  # fmt: skip
        deadline = time.monotonic() + 20
        while not (
            PORT.search(text := log.read_text())
            and FINGERPRINT.search(text)
            and (invite := JOIN.search(text))
            and (spectating := WATCH.search(text))
        ):
            assert started[0].poll() is None, text
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        tmux.resize(120, 250)  # the whole second game's log stays on the screen
        launch(tmux, tmp_path / "eve", "watch", spectating.group(1), "--stay",
               "--replay", str(tmp_path / "eve.dbnr"))  # fmt: skip
        while "is watching via" not in log.read_text():
            assert time.monotonic() < deadline + 20, log.read_text()
            time.sleep(0.05)
        joining = [
            sys.executable, "-m", "dbnet", "join", invite.group(1), "--bot", "greedy", "--plain",
            "--rematch", "1", "--name", "bob", "--replay", str(tmp_path / "bob.dbnr"),
        ]  # fmt: skip
        with joined.open("wb") as out:
            started.append(subprocess.Popen(
                joining, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "DBNET_HOME": str(tmp_path / "bob")},
            ))  # fmt: skip
        second = tmp_path / "eve-2.dbnr"
        deadline = time.monotonic() + 120
        while not all(process.poll() is not None for process in started):
            assert time.monotonic() < deadline, tmux.pane()
            time.sleep(0.1)
        codes = [process.returncode for process in started]
        outputs = log.read_text() + "\n\n" + joined.read_text()
        assert codes == [0, 0], outputs
        pane = tmux.wait_for("[game 2 over]")  # the top bar names the game
        game_1 = re.search(r"Game\s+1\s+is\s+over;\s+every\s+entry\s+was\s+verified", pane)
        next_game = re.search(r"the\s+players\s+play\s+their\s+next\s+game:\s+replay\s+/", pane)
        assert game_1 is not None, pane
        assert next_game is not None, pane
        numbered = re.findall(r"^\s+(\d+)\. ", pane[next_game.end() :], re.MULTILINE)
        assert numbered[:1] == ["1"], pane  # the next game's entries, numbered from 1
        assert "no next game" in pane
        assert second.exists(), outputs
        tmux.keys("C-q")
        wait_until(tmux, r"EXIT=\d")
        said = tmux.text()
        assert re.search(r"EXIT=0", said), said
        assert re.search(r"Replay\s+saved\s+\(complete\):\s+\S*eve\.dbnr", said), said
        assert re.search(r"Replay\s+saved\s+\(complete\):\s+\S*eve-2\.dbnr", said), said
        for mine, hosts in (("eve.dbnr", "alice.dbnr"), ("eve-2.dbnr", "alice-2.dbnr")):
            assert (tmp_path / mine).read_bytes() == (tmp_path / hosts).read_bytes(), outputs
            verified = subprocess.run(
                [sys.executable, "-m", "dbnet", "verify", str(tmp_path / mine)],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert "complete" in verified.stdout
        assert not (tmp_path / "eve-3.dbnr").exists()
    finally:
        for process in started:
            process.kill()
            process.wait(timeout=10)
