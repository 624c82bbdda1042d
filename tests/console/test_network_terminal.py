"""Two full-screen clients, host and join, on loopback, each in a real terminal (tmux),
played by keys against each other through a whole turn, surviving a window resize and
the joiner's death (`dbnet resume`)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
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
def second_tmux(needs_tmux: None, tmp_path: Path) -> Iterator[Tmux]:
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


def dbnet_pid(tmux: Tmux) -> int:
    """The process the pane's shell runs (the dbnet we launched there)."""
    shell = int(tmux.run("list-panes", "-t", "t", "-F", "#{pane_pid}").split()[0])
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def play_until(tmux: Tmux, second: Tmux, done: Callable[[], bool], what: str) -> int:
    """Both clients answer their own decisions by keys until ``done()``; the keys sent."""
    deadline = time.monotonic() + GAME_TIMEOUT
    plays = 0
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{what} did not happen after {plays} plays;\nhost:\n{tmux.pane()}\n"
                f"join:\n{second.pane()}"
            )
        plays += step(tmux, "A") + step(second, "B")
        time.sleep(0.1)  # a polling interval: the loop goes on when a pane changes
    return plays


def test_host_and_join_play_a_game_by_keys(tmux: Tmux, second_tmux: Tmux, tmp_path: Path) -> None:
    """Two real processes on loopback, each full screen in its own terminal: the connection
    state and the opponent's key fingerprint show; the host's window is resized mid-game;
    the joiner is killed, the host says it is reconnecting, and `dbnet resume` brings the
    joiner back into the same game, which goes on to the end of turn 1."""
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
    # the connection state on top, the opponent's name and key fingerprint on its seat line
    fingerprint = r"[A-Z2-7]{4}(-[A-Z2-7]{4}){3}"
    wait_until(tmux, rf"\[connected to bob via direct\][\s\S]*B bob {fingerprint}")
    wait_until(second_tmux, rf"\[connected to alice via direct\][\s\S]*A alice {fingerprint}")

    def host_decides() -> bool:  # eight entries in, and the host (A) owes a decision
        pane = tmux.pane()
        return (
            len(load_replay(join_replay).records) >= 8
            and "Your decision: " in pane
            and re.search(r"^A> *$", pane, re.MULTILINE) is not None
        )

    plays = play_until(tmux, second_tmux, host_decides, "a decision of the host's")

    # a resize mid-game: the screen is drawn again for the new size, the game goes on
    tmux.run("resize-window", "-t", "t", "-x", "120", "-y", "40")
    pane = wait_until(tmux, r"Conquest now A \d+ B \d+")  # the wide top bar
    assert len(pane.splitlines()) == 40
    assert "5 pts A+B" in pane  # the wide board's marks
    assert "[connected to bob via direct]" in pane
    tmux.run("resize-window", "-t", "t", "-x", "80", "-y", "24")
    wait_until(tmux, r"5pt A\+B")

    # the joiner's process dies while the host is deciding: the host's screen says so at
    # once (no key pressed there) and the host waits for the joiner
    os.kill(dbnet_pid(second_tmux), signal.SIGKILL)
    second_tmux.wait_for("EXIT=137")
    wait_until(tmux, r"\[reconnecting\.\.\.\]")
    held = len(load_replay(join_replay).records)
    # `dbnet resume` goes on with the joiner's replay (the killed screen left the terminal
    # raw: stty sane first)
    second_tmux.type("stty sane; clear")
    second_tmux.keys("Enter")
    launch(
        second_tmux, tmp_path / "bob", "resume", str(join_replay), f"127.0.0.1:{port}",
        "--name", "bob",
    )  # fmt: skip
    wait_until(tmux, r"\[connected to bob via direct\]")
    wait_until(second_tmux, rf"\[connected to alice via direct\][\s\S]*A alice {fingerprint}")

    def turn_over() -> bool:
        return all(re.search(r"Turn 2|The game is over", t.pane()) for t in (tmux, second_tmux))

    plays += play_until(tmux, second_tmux, turn_over, "the end of turn 1")
    assert plays >= 10  # both players decided their spawns and all eight action phases
    assert len(load_replay(join_replay).records) > held  # the game went on after the resume
    for client in (tmux, second_tmux):
        client.type("quit")
        client.keys("Enter")
        if "The game is over" not in client.pane():
            # a network game left unfinished is saved: it is adjourned (exit 3), not
            # abandoned, and the hint to go on names the player's --name (issue 19)
            client.wait_for("Quit? The game is saved: you can go on with it later.")
            client.keys("y")
            client.wait_for("EXIT=3")
            assert re.search(r"Go on later: .*dbnet resume .* --name (alice|bob)", client.text())
        else:
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


def test_the_clocks_show_and_run_on_the_top_bar(
    tmux: Tmux, second_tmux: Tmux, tmp_path: Path
) -> None:
    """``dbnet host --clock 10`` full screen against a bot joiner: the top bar shows both
    clocks, the host's running (``*``) while it owes a decision, counting down."""
    port = free_port()
    launch(
        tmux, tmp_path / "alice", "host", "--port", str(port), "--open", "--address", "127.0.0.1",
        "--clock", "10", "--name", "alice", "--replay", str(tmp_path / "host.dbnr"),
    )  # fmt: skip
    tmux.wait_for("listening on port")
    launch(
        second_tmux, tmp_path / "bob", "join", f"127.0.0.1:{port}", "--name", "bob",
        "--bot", "greedy", "--plain", "--replay", str(tmp_path / "join.dbnr"),
    )  # fmt: skip
    running = r"\[connected to bob via direct \| A (\d+):(\d\d)\* B (\d+):(\d\d)\]"
    first = re.search(running, wait_until(tmux, running))
    assert first is not None
    shown = f"A {first[1]}:{first[2]}*"
    deadline = time.monotonic() + 20
    while True:  # the host's clock counts down on its own (a pane mid-redraw is read again)
        pane = tmux.pane()
        later = re.search(running, pane)
        if later is not None and shown not in pane:
            break
        assert time.monotonic() < deadline, pane
        time.sleep(0.2)
    assert (int(later[1]), int(later[2])) < (int(first[1]), int(first[2]))
    assert int(later[3]) * 60 + int(later[4]) > 590  # the bot's clock: it thinks fast
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("Quit? The game is saved: you can go on with it later.")
    tmux.keys("y")
    tmux.wait_for("EXIT=3")
    second_tmux.wait_for("EXIT=")


@pytest.mark.parametrize("columns", [120, 80])
def test_the_host_shows_its_invite_alone_to_copy_it_whole(
    tmux: Tmux, tmp_path: Path, columns: int
) -> None:
    """Issue 30, item 8: the full-screen host's log wraps at its width, so the invite is
    also shown alone ('invite'): out of the full screen, on a line of its own that the
    terminal wraps itself, so a copy joins it whole (``capture-pane -J``) and the rows it
    takes hold nothing but its characters, in order; Enter goes back to the game."""
    tmux.resize(columns, 30)
    home = tmp_path / "alice"
    launch(tmux, home, "host", "--port", str(free_port()), "--name", "alice")
    tmux.wait_for("listening on port")
    invite = (home / "invite.txt").read_text(encoding="ascii").strip()
    assert invite.startswith("dbnet join DB1")
    assert len(invite) > 80  # longer than the log is wide
    wait_until(tmux, r"type 'invite'")  # the log says how
    tmux.type("invite")
    tmux.keys("Enter")
    pane = wait_until(tmux, r"Press Enter to go back to the game")

    joined = tmux.text().splitlines()  # the terminal's own wrapping undone
    assert invite in [line.rstrip() for line in joined], "\n".join(joined)
    rows = pane.splitlines()
    first = next(i for i, row in enumerate(rows) if row.startswith("dbnet join DB1"))
    count = -(-len(invite) // columns)
    shown = rows[first : first + count]
    assert shown == [invite[i : i + columns] for i in range(0, len(invite), columns)], pane

    tmux.keys("Enter")
    wait_until(tmux, r"\[waiting for the opponent\]")  # the game's screen again
    tmux.keys("C-q")
    wait_until(tmux, r"Quit\?")
    tmux.keys("y")
    tmux.wait_for("EXIT=")


def test_sigterm_leaves_the_network_full_screen_saved(tmux: Tmux, tmp_path: Path) -> None:
    """SIGTERM to a full-screen host mid-game (a service manager, a logout): it leaves as
    Ctrl-C does, with the game saved and the line that goes on with it."""
    port = free_port()
    host_replay = tmp_path / "host.dbnr"
    launch(
        tmux, tmp_path / "alice", "host", "--open", "--port", str(port), "--name", "alice",
        "--replay", str(host_replay),
    )  # fmt: skip
    tmux.wait_for("listening on port")
    command = [
        sys.executable, "-m", "dbnet", "join", f"127.0.0.1:{port}", "--name", "bob",
        "--bot", "greedy", "--replay", str(tmp_path / "join.dbnr"), "--adjourn-after", "2",
    ]  # fmt: skip
    joiner = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "DBNET_HOME": str(tmp_path / "bob")},
    )
    try:
        wait_until(tmux, r"\[connected to bob via direct\]")
        os.kill(dbnet_pid(tmux), signal.SIGTERM)
        tmux.wait_for(f"EXIT={128 + signal.SIGTERM}")
    finally:
        joiner.kill()
        joiner.wait(timeout=10)
    text = tmux.text()
    assert "Stopped by SIGTERM; the game is saved and can be resumed." in text
    assert f"Replay saved (unfinished): {host_replay}" in text
    assert re.search(r"Go on later: .*dbnet resume .* --name alice", text)
    verdict = verify_replay(host_replay.read_bytes(), where=str(host_replay))
    assert verdict.status is VerdictStatus.UNFINISHED, verdict
