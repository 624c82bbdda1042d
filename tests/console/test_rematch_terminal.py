"""A person in the line interface (``dbnet join --plain`` in a real terminal, tmux) is asked
when the game ends and types ``rematch``: a second game with the host's bot (``--rematch
1``) starts over the same connection, a replay of its own; the full-screen client refuses
``--rematch`` in one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.bodies import OfferBody
from dbnet.wire.entries import decode_signed_entry

from .test_network_terminal import free_port, launch, wait_until
from .tmux import Tmux

PROMPT = re.compile(r"\n> *\n*$")


def at_prompt(tmux: Tmux, after: int) -> str:
    """Wait until the pane's history ends at the line prompt, ``after`` characters on."""
    deadline = time.monotonic() + 60
    while True:
        text = tmux.text().rstrip("\n") + "\n"
        if len(text) > after and PROMPT.search(text[after:]):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"no prompt after character {after}; the terminal:\n{text}")
        time.sleep(0.1)


def wait_text(tmux: Tmux, text: str, count: int = 1) -> str:
    """Wait until ``text`` was printed ``count`` times (the pane and its history)."""
    deadline = time.monotonic() + 60
    while (history := tmux.text()).count(text) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never came {count} times; the terminal:\n{history}")
        time.sleep(0.1)
    return history


def test_a_person_types_rematch_and_plays_a_second_game(tmux: Tmux, tmp_path: Path) -> None:
    port = free_port()
    host_home, join_home = tmp_path / "alice-home", tmp_path / "bob-home"
    log = (tmp_path / "host.log").open("w")
    # fmt: off
    host = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dbnet",
            "host",
            "--port",
            str(port),
            "--open",
            "--bot",
            "greedy",
            "--plain",
            "--rematch",
            "1",
            "--turns-to-win",
            "1",
            "--name",
            "alice",
            "--replay",
            str(tmp_path / "alice.dbnr"),
        ],
        env={**os.environ, "DBNET_HOME": str(host_home)},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    # fmt: on
    try:
        time.sleep(0.5)
        bob = str(tmp_path / "bob.dbnr")
        args = ["join", f"127.0.0.1:{port}", "--plain", "--name", "bob", "--replay", bob]
        launch(tmux, join_home, *args)
        text = at_prompt(tmux, 0)
        tmux.type("resign")
        tmux.keys("Enter")
        wait_text(tmux, "type rematch to")
        tmux.type("rematch")
        tmux.keys("Enter")
        text = wait_text(tmux, "rematch: both players want another game; it starts now")
        text = at_prompt(tmux, text.index("rematch: both players want"))
        assert f"replay: {tmp_path / 'bob-2.dbnr'}" in text
        tmux.type("resign")
        tmux.keys("Enter")
        wait_text(tmux, "EXIT=0")
        assert host.wait(timeout=30) == 0
    finally:
        host.kill()
        host.wait()
        log.close()
    text = tmux.text()
    assert text.count("connected to alice") == 2
    assert "Traceback" not in text
    ids = []
    for name in ("alice", "bob", "alice-2", "bob-2"):
        path = tmp_path / f"{name}.dbnr"
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status is VerdictStatus.COMPLETE, verdict
        ids.append(load_replay(path).header.game_id)
    assert ids[0] == ids[1] != ids[2] == ids[3]


def test_the_full_screen_client_refuses_rematch_in_one_line(tmux: Tmux, tmp_path: Path) -> None:
    launch(tmux, tmp_path / "home", "join", "127.0.0.1:9", "--rematch", "1")
    wait_until(tmux, "EXIT=2")
    said = [line for line in tmux.text().splitlines() if "--rematch is" in line]
    assert said == [
        "dbnet join: --rematch is for --bot and --plain (scripts): in the full-screen client, "
        "type 'rematch' when the game ends"
    ]


def test_in_the_full_screen_the_person_types_rematch(tmux: Tmux, tmp_path: Path) -> None:
    """The full-screen joiner resigns, is asked, types 'rematch': the host's bot (``--rematch
    1``) plays a second game over the same connection, shown on the same screen."""
    port = free_port()
    log = (tmp_path / "host.log").open("w")
    # fmt: off
    host = subprocess.Popen(
        [
            sys.executable, "-m", "dbnet", "host", "--port", str(port), "--open", "--bot",
            "greedy", "--plain", "--rematch", "1", "--turns-to-win", "1", "--name", "alice",
            "--replay", str(tmp_path / "alice.dbnr"),
        ],
        env={**os.environ, "DBNET_HOME": str(tmp_path / "alice-home")},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    # fmt: on
    try:
        time.sleep(0.5)
        bob = str(tmp_path / "bob.dbnr")
        launch(tmux, tmp_path / "bob-home", "join", f"127.0.0.1:{port}", "--name", "bob",
               "--replay", bob)  # fmt: skip
        for game in (1, 2):
            wait_until(tmux, r"Your decision: ")
            tmux.type("resign")
            tmux.keys("Enter")
            wait_until(tmux, r"\[y\] yes")
            tmux.keys("y")
            if game == 1:
                wait_until(tmux, r"type 'rematch'")
                tmux.type("rematch")
                tmux.keys("Enter")
                deadline = time.monotonic() + 30
                while not (tmp_path / "bob-2.dbnr").exists():  # the next game has started
                    assert time.monotonic() < deadline, tmux.pane()
                    time.sleep(0.1)
        assert host.wait(timeout=60) == 0  # after the last BYE: both logs are complete
        wait_until(tmux, r"F5 shows the\s+log")  # the status line may wrap a long path
        tmux.type("quit")
        tmux.keys("Enter")
        wait_until(tmux, "EXIT=0")
    finally:
        host.kill()
        host.wait()
        log.close()
    ids = []
    for name in ("alice", "bob", "alice-2", "bob-2"):
        path = tmp_path / f"{name}.dbnr"
        verdict = verify_replay(path.read_bytes(), where=str(path))
        assert verdict.status is VerdictStatus.COMPLETE, verdict
        ids.append(load_replay(path).header.game_id)
    assert ids[0] == ids[1] != ids[2] == ids[3]


def offered_turns(path: Path) -> int:
    """The turns to win of the OFFER (entry 0) of the replay at ``path``."""
    _, entry = decode_signed_entry(load_replay(path).records[0])
    assert isinstance(entry.body, OfferBody)
    return entry.body.setup.options.turns_to_win


def test_the_host_changes_the_terms_for_the_rematch(tmux: Tmux, tmp_path: Path) -> None:
    """The host, a person in the line interface (tmux), answers the rematch question with
    ``rematch --turns-to-win 0`` (refused in one line, the question stays open), then
    ``rematch --turns-to-win 1``: the second game's OFFER has the new turns to win, and the
    joiner's bot (``--rematch 1``) is told them before its ACCEPT."""
    port = free_port()
    log = (tmp_path / "join.log").open("w")
    launch(tmux, tmp_path / "alice-home", "host", "--port", str(port), "--open", "--plain",
           "--name", "alice", "--replay", str(tmp_path / "alice.dbnr"))  # fmt: skip
    wait_text(tmux, "waiting for the opponent")
    # fmt: off
    joiner = subprocess.Popen(
        [sys.executable, "-m", "dbnet", "join", f"127.0.0.1:{port}", "--bot", "greedy",
         "--plain", "--rematch", "1", "--name", "bob", "--replay", str(tmp_path / "bob.dbnr")],
        env={**os.environ, "DBNET_HOME": str(tmp_path / "bob-home")},
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
    )
    # fmt: on
    try:
        at_prompt(tmux, 0)
        tmux.type("resign")
        tmux.keys("Enter")
        wait_text(tmux, "type rematch to")
        tmux.type("rematch --turns-to-win 0")
        tmux.keys("Enter")
        wait_text(tmux, "rematch: --turns-to-win must be from 1 to 99")
        tmux.type("rematch --turns-to-win 1")
        tmux.keys("Enter")
        text = wait_text(tmux, "rematch: both players want another game; it starts now")
        at_prompt(tmux, text.index("rematch: both players want"))
        tmux.type("resign")
        tmux.keys("Enter")
        wait_text(tmux, "EXIT=0")
        assert joiner.wait(timeout=30) == 0
    finally:
        joiner.kill()
        joiner.wait()
        log.close()
    said = (tmp_path / "join.log").read_text()
    offers = [line for line in said.splitlines() if line.startswith("the host offers: ")]
    assert len(offers) == 2, said
    assert " 6 turns to win" in offers[0], said
    assert " 1 turns to win" in offers[1], said
    assert offered_turns(tmp_path / "alice.dbnr") == 6
    assert offered_turns(tmp_path / "alice-2.dbnr") == 1
    assert (tmp_path / "alice-2.dbnr").read_bytes() == (tmp_path / "bob-2.dbnr").read_bytes()
    assert "Traceback" not in tmux.text()


def test_in_the_full_screen_the_host_types_new_terms_for_the_rematch(
    tmux: Tmux, tmp_path: Path
) -> None:
    """The full-screen host resigns, is asked, types ``rematch --turns-to-win 0`` (one
    line: the question stays open), then ``rematch --turns-to-win 1``: the joiner's bot
    (``--rematch 1``) plays the second game with the new turns to win."""
    port = free_port()
    log = (tmp_path / "join.log").open("w")
    launch(tmux, tmp_path / "alice-home", "host", "--port", str(port), "--open", "--name",
           "alice", "--replay", str(tmp_path / "alice.dbnr"))  # fmt: skip
    wait_until(tmux, "waiting for the opponent")
    # fmt: off
    joiner = subprocess.Popen(
        [sys.executable, "-m", "dbnet", "join", f"127.0.0.1:{port}", "--bot", "greedy",
         "--plain", "--rematch", "1", "--name", "bob", "--replay", str(tmp_path / "bob.dbnr")],
        env={**os.environ, "DBNET_HOME": str(tmp_path / "bob-home")},
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
    )
    # fmt: on
    try:
        for game in (1, 2):
            wait_until(tmux, r"Your decision: ")
            tmux.type("resign")
            tmux.keys("Enter")
            wait_until(tmux, r"\[y\] yes")
            tmux.keys("y")
            if game == 1:
                wait_until(tmux, r"type 'rematch'")
                tmux.type("rematch --turns-to-win 0")
                tmux.keys("Enter")
                wait_until(tmux, r"--turns-to-win must be from 1 to 99")
                tmux.keys("C-u")  # the refused line stays in the entry, to be fixed
                tmux.type("rematch --turns-to-win 1")
                tmux.keys("Enter")
                deadline = time.monotonic() + 30
                while not (tmp_path / "alice-2.dbnr").exists():  # the next game has started
                    assert time.monotonic() < deadline, tmux.pane()
                    time.sleep(0.1)
        assert joiner.wait(timeout=60) == 0
        wait_until(tmux, r"F5 shows the\s+log")  # the status line may wrap a long path
        tmux.type("quit")
        tmux.keys("Enter")
        wait_until(tmux, "EXIT=0")
    finally:
        joiner.kill()
        joiner.wait()
        log.close()
    assert offered_turns(tmp_path / "alice.dbnr") == 6
    assert offered_turns(tmp_path / "alice-2.dbnr") == 1
    assert (tmp_path / "alice-2.dbnr").read_bytes() == (tmp_path / "bob-2.dbnr").read_bytes()
