"""The real program in a real terminal: tmux at 80x24, keys sent, the pane read back."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbnet.console.replay_view import ReplayModel
from dbnet.console.session import LocalSession
from dbnet.console.view import NARROW_CELL, compact_token, render_board
from dbnet.engine import Player, Zone
from dbnet.match.render import short_names
from dbnet.replay.verify import ReplayVerifier
from dbnet.wire.bodies import PlayBody

from .helpers import SEED, bot_session
from .tmux import Tmux


def opening(seed: int = SEED) -> LocalSession:
    """The game ``dbnet play --seed SEED`` plays, in this process, up to A's first decision
    (the same keys, dice and bot)."""
    session = bot_session(seed)
    asyncio.run(session.advance(lambda: None))
    session.close()
    return session


def start_game(tmux: Tmux, *args: str, seed: int = SEED) -> None:
    """``dbnet play`` with no interface option: on a terminal, that is the full screen."""
    command = [sys.executable, "-m", "dbnet", "play", "--seed", str(seed), "--bot-delay", "0"]
    tmux.type(shlex.join([*command, *args]) + "; echo EXIT=$?")
    tmux.keys("Enter")
    tmux.wait_for("Your decision: A to spawn")


def shell(tmux: Tmux, *command: str) -> str:
    """Run ``command`` in the pane's shell (the screen cleared first); the pane after it.

    The typed line spells the marker ``STAT""US=`` so that only the command's own
    output, never the line being typed, shows ``STATUS=``."""
    tmux.type(f'clear; {shlex.join(command)}; echo STAT""US=$?')
    tmux.keys("Enter")
    tmux.wait_for("STATUS=")
    return tmux.text()


def assert_terminal_usable(tmux: Tmux) -> None:
    """The shell reads lines again: canonical mode and echo are back on (stty shows
    ``-icanon`` or ``-echo`` when they are off)."""
    tmux.type("echo OFF=$(stty -a | grep -o -w -e -icanon -e -echo | wc -l)")
    tmux.keys("Enter")
    tmux.wait_for("OFF=0\n")


def test_play_in_a_real_terminal(tmux: Tmux) -> None:
    game = opening().game
    names = short_names(game)
    spawned = [m for m in game.minis if m.owner is Player.B and m.zone is Zone.DREAMSCAPE]
    assert spawned  # SEED: B, the bot, went first and spawned
    start_game(tmux)
    pane = tmux.pane()
    lines = pane.splitlines()
    assert lines[0].startswith(" Turn 1, spawn phase of A, B went first")
    for m in spawned:  # the bot's spawns are on the board
        assert compact_token(m, names[m.id], NARROW_CELL) in pane
    assert f"A reserves ({game.spawn_points} pts)" in pane

    # an illegal entry is answered with the engine's reason
    tmux.type("spawn lantern-page a1")
    tmux.keys("Enter")
    tmux.wait_for("Not played: you cannot spawn lantern-page a1: A:lantern-page")

    # a legal one is played and drawn: the token in e1, row 1's last cell
    tmux.keys("C-u")
    tmux.type("spawn lantern-page e1")
    tmux.keys("Enter")
    pane = tmux.wait_for("Played: spawn lantern-page e1")
    row1 = next(line for line in pane.splitlines() if line.startswith("1 |"))
    assert row1.split("|")[5].strip() == "A:l-page"

    # quit asks first, then leaves the terminal as it found it
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("Quit? The game is saved: you can go on with it later.")
    tmux.keys("y")
    pane = tmux.wait_for("EXIT=0")
    assert "Game left unfinished; it is saved and can be resumed." in pane
    assert_terminal_usable(tmux)


def test_ctrl_c_leaves_a_usable_terminal(tmux: Tmux) -> None:
    start_game(tmux)
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
    assert_terminal_usable(tmux)


WHOLE_GAME_TIMEOUT = 300.0


def test_a_whole_game_by_keys_leaves_a_replay_that_verifies(tmux: Tmux, tmp_path: Path) -> None:
    """Down picks the first legal choice, Enter plays it, y ends a phase: the game is
    played to its end; `dbnet verify` then accepts the replay as complete."""
    path = tmp_path / "whole.dbnr"
    start_game(tmux, "--replay", str(path), seed=5)
    pane = tmux.pane()
    # said at the start, wrapped where the 80 columns end (a long path: at a slash)
    assert f"Savingthereplayto{path}" in "".join(pane.split())
    deadline = time.monotonic() + WHOLE_GAME_TIMEOUT
    plays = 0
    while "The game is over." not in pane:
        if time.monotonic() > deadline:
            raise AssertionError(f"the game did not end after {plays} plays; the pane:\n{pane}")
        if "[y] yes" in pane:
            tmux.keys("y")
        elif "Your decision: " in pane and re.search(r"^A> *$", pane, re.MULTILINE):
            tmux.keys("Down", "Enter")
            plays += 1
        time.sleep(0.05)  # a polling interval: the loop only goes on when the pane changes
        pane = tmux.pane()
    assert re.search(r"You (win|lose)\. [AB] wins", pane)
    assert plays > 10
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("EXIT=0")
    assert f"Replay saved (complete): {path}" in tmux.text()
    assert_terminal_usable(tmux)
    pane = shell(tmux, sys.executable, "-m", "dbnet", "verify", str(path))
    assert "STATUS=0" in pane
    assert re.search(r": complete: [AB] won by victory on turn \d+", pane)
    # the default warbands' abilities were played by keys too (seed 5: A's Rallying
    # Beacon activates its Advance 2 and chooses its targets in turn 2)
    verifier = ReplayVerifier(str(path))
    verifier.run(path.read_bytes())
    assert verifier.log is not None
    mine = [
        e.body.decision.split()[0]
        for e in verifier.log.decoded
        if e.author == Player.A and isinstance(e.body, PlayBody) and e.body.decision
    ]
    assert {"activate", "target"} <= set(mine)


def test_quitting_mid_game_leaves_a_valid_unfinished_replay(tmux: Tmux, tmp_path: Path) -> None:
    path = tmp_path / "left.dbnr"
    start_game(tmux, "--replay", str(path))
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
    pane = tmux.text()
    assert "Interrupted; the game is saved and can be resumed." in pane
    assert f"Replay saved (unfinished): {path}" in pane
    assert f"Go on with it: dbnet play --resume {path}\n" in pane  # the file is enough
    assert_terminal_usable(tmux)
    pane = shell(tmux, sys.executable, "-m", "dbnet", "verify", str(path))
    assert "STATUS=1" in pane  # only a complete game verifies...
    assert "unfinished after" in pane  # ...but this one is valid so far
    assert "A owes entry" in pane


def test_the_full_screen_quit_line_resumes_against_the_same_bot(tmux: Tmux, tmp_path: Path) -> None:
    """Quit full screen, run the printed line as it is: the same bot, not the default."""
    path = tmp_path / "random.dbnr"
    start_game(tmux, "--replay", str(path), "--bot", "random")
    tmux.keys("C-q")
    tmux.wait_for("Quit? The game is saved")
    tmux.keys("y")
    tmux.wait_for("EXIT=0")
    found = re.search(r"Go on with it: (.+)\n", tmux.text())
    assert found
    words = shlex.split(found.group(1))
    assert words == ["dbnet", "play", "--resume", str(path)]
    tmux.type("clear; " + shlex.join([sys.executable, "-m", *words[:]]) + "; echo EXIT=$?")
    tmux.keys("Enter")
    pane = tmux.wait_for("Your decision: A")
    assert "random bot" in pane
    assert "greedy" not in pane
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")


def test_plain_keeps_the_line_interface_in_a_terminal(tmux: Tmux, tmp_path: Path) -> None:
    path = tmp_path / "plain.dbnr"
    command = [sys.executable, "-m", "dbnet", "play", "--plain", "--seed", str(SEED)]
    tmux.type(shlex.join([*command, "--replay", str(path)]) + "; echo EXIT=$?")
    tmux.keys("Enter")
    pane = tmux.wait_for("\nA>")  # the prompt (the pane drops trailing blanks)
    assert "Legal choices (" in pane
    assert "Victory A 0/6" not in pane  # not the full screen's top bar
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("EXIT=0")
    assert "quit: game adjourned" in tmux.text()
    assert path.exists()


RECORDED = Path(__file__).resolve().parents[2] / "replays" / "01-greedy-vs-random.dbnr"


def open_replay(tmux: Tmux, *args: str, tag: str = "EXIT") -> None:
    """``dbnet replay ARGS``, then ``TAG=<exit code>`` echoed."""
    command = [sys.executable, "-m", "dbnet", "replay", *args]
    tmux.type(shlex.join(command) + f"; echo {tag}=$?")
    tmux.keys("Enter")


def recorded_model() -> ReplayModel:
    """RECORDED's steps and positions, read in this process: the facts the viewer in the
    terminal must show (a regeneration of the file changes them)."""
    return ReplayModel.from_bytes(RECORDED.read_bytes(), where=str(RECORDED))


def test_a_replay_stepped_through_in_a_real_terminal(tmux: Tmux) -> None:
    model = recorded_model()
    winner, last = model.verdict.winner, model.last
    k = next(s.number for s in model.steps if s.notation.startswith("spawn "))
    spawn = model.steps[k]
    mini = next(
        m
        for m in model.position(k).minis
        if m.owner is spawn.author and m.handle == spawn.notation.split()[1]
    )
    token = compact_token(mini, short_names(model.position(k))[mini.id], NARROW_CELL)
    open_replay(tmux, str(RECORDED))
    pane = tmux.wait_for("Right (or n) steps forward")
    lines = pane.splitlines()
    assert lines[0].startswith(f" {RECORDED.name}: complete: {winner} won by victory on turn")
    assert lines[1].startswith(" Turn 1, initiative phase")

    tmux.keys(*["Right"] * k)  # to the first spawn, after the initiative rolls
    pane = tmux.wait_for(f"Step {k} of {last}")
    assert f"{spawn.words}." in " ".join(pane.split())
    assert token in pane  # on the board

    tmux.keys("Left")  # one back: the roll that decided the first player, dice and words
    pane = tmux.wait_for(f"Step {k - 1} of {last}")
    roll = model.steps[k - 1]
    assert f"{roll.notation}: {roll.words}" in " ".join(pane.split())
    assert "goes first." in roll.words
    assert token not in pane

    tmux.type(":3")  # a turn by number
    tmux.keys("Enter")
    pane = tmux.wait_for("Turn 3, its first step.")
    assert pane.splitlines()[1].startswith(" Turn 3, ")
    assert f"Step {model.first_of_turn(3)} of {last}" in pane

    tmux.keys("PageDown")
    pane = tmux.wait_for("turn 4: roll")
    assert pane.splitlines()[1].startswith(" Turn 4, ")

    tmux.keys("q")
    tmux.wait_for("EXIT=0")
    assert f"{RECORDED}: complete: {winner} won by victory" in tmux.text()
    assert_terminal_usable(tmux)


def test_a_replay_opens_at_a_turn(tmux: Tmux) -> None:
    turn = recorded_model().turns[-1]  # the last turn: the game has it, whatever it is
    open_replay(tmux, str(RECORDED), "--at", str(turn))
    pane = tmux.wait_for("Step ")
    assert f", turn {turn}: roll " in pane  # the turn's first step: its initiative roll
    assert pane.splitlines()[1].startswith(f" Turn {turn}, ")
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
    assert_terminal_usable(tmux)


def test_a_bad_replay_file_is_one_line_in_a_terminal(tmux: Tmux, tmp_path: Path) -> None:
    junk = tmp_path / "junk.dbnr"
    junk.write_bytes(b"not a replay at all")
    open_replay(tmux, str(junk), tag="JUNK")
    tmux.wait_for("JUNK=1")
    assert f"{junk}: invalid: not a dbnet replay" in tmux.text()
    open_replay(tmux, str(tmp_path / "missing.dbnr"), tag="MISSING")
    tmux.wait_for("MISSING=2")
    assert f"dbnet replay: {tmp_path / 'missing.dbnr'}: cannot read" in tmux.text()
    turns = recorded_model().turns[-1]
    open_replay(tmux, str(RECORDED), "--at", str(turns + 2), tag="NOTURN")
    tmux.wait_for("NOTURN=2")
    assert f"the game has no turn {turns + 2} (it has turns 1 to {turns})" in tmux.text()
    assert "Traceback" not in tmux.text()
    assert_terminal_usable(tmux)


def test_replay_plain_prints_the_text_in_a_terminal(tmux: Tmux) -> None:
    open_replay(tmux, str(RECORDED), "--plain", "--at", "2")
    tmux.wait_for("EXIT=0")
    text = tmux.text()
    assert "Position at the start of turn 2:" in text
    assert "Step " not in text  # not the viewer


# --- the size of the terminal -----------------------------------------------------------

BOTTOM = re.compile(r"^  \+-+a-+\+-+b-+\+-+c-+\+-+d-+\+-+e-+\+", re.MULTILINE)
TOO_SMALL = "dbnet needs at least 80x24"


def assert_board_whole(pane: str) -> None:
    """Every row number (5 to 1 from A's edge) and the line of column letters a-e are on
    the screen, in order, and no too-small message."""
    lines = pane.splitlines()
    numbers = [line[0] for line in lines if re.match(r"[1-5] \|", line)]
    assert numbers == ["5", "4", "3", "2", "1"], pane
    assert BOTTOM.search(pane), pane
    bottom = next(i for i, line in enumerate(lines) if BOTTOM.match(line))
    assert bottom > max(i for i, line in enumerate(lines) if line.startswith("1 |")), pane
    assert TOO_SMALL not in pane


def test_a_full_board_fits_80x24_and_a_smaller_terminal_is_told(tmux: Tmux) -> None:
    """Two miniatures in e1 beside the bot's three in a5 made the board taller than the
    room at 80x24: the column letters were cut off. Now the board fits (the fullest cell
    shows '+N more' if it must), a smaller terminal gets the size it needs, and the board
    comes back whole when the terminal does."""
    start_game(tmux)
    for entry in ("spawn lantern-page e1", "spawn rallying-beacon e1"):
        tmux.type(entry)
        tmux.keys("Enter")
        tmux.wait_for(f"Played: {entry}")
    pane = tmux.pane()
    assert_board_whole(pane)
    lines = pane.splitlines()
    assert re.search(r"^A> *$", pane, re.MULTILINE)  # the prompt
    assert "A reserves (" in pane  # the reserves
    assert any(re.match(r" +\d+\. [AB ] ", line) for line in lines)  # the log
    assert "A:l-page" in pane
    assert "A@r-beacon" in pane

    tmux.resize(80, 20)
    pane = tmux.wait_for(TOO_SMALL)
    assert "This terminal is 80x20" in " ".join(pane.split())
    assert not BOTTOM.search(pane)
    assert "1 |" not in pane

    tmux.resize(80, 24)
    pane = tmux.wait_for("+----a")
    assert_board_whole(pane)
    assert "A:l-page" in pane
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")


CROWDED = (
    Path(__file__).resolve().parents[1]
    / "replay"
    / "fixtures"
    / "v1"
    / "07-mirror-vs-hive-abilities.dbnr"
)


def test_the_replay_viewer_fits_its_fullest_board_in_80x24(tmux: Tmux) -> None:
    model = ReplayModel.from_bytes(CROWDED.read_bytes(), where=str(CROWDED))
    tallest = max(
        range(model.last + 1), key=lambda k: len(render_board(model.position(k), NARROW_CELL))
    )
    assert len(render_board(model.position(tallest), NARROW_CELL)) > 15  # too tall as it is
    open_replay(tmux, str(CROWDED))
    tmux.wait_for("Right (or n) steps forward")
    tmux.type(f"#{tallest}")
    tmux.keys("Enter")
    pane = tmux.wait_for(f"Step {tallest} of {model.last}")
    assert_board_whole(pane)
    assert "more" in pane or re.search(r"\+\d\|", pane)  # the fullest cells say how many

    tmux.resize(80, 20)
    pane = tmux.wait_for(TOO_SMALL)
    assert "q or Ctrl-Q quits" in " ".join(pane.split())
    tmux.resize(80, 24)
    pane = tmux.wait_for("+----a")
    assert_board_whole(pane)
    tmux.keys("q")
    tmux.wait_for("EXIT=0")
    assert_terminal_usable(tmux)


def test_one_enter_plays_an_entry_taken_from_the_completion_menu(tmux: Tmux) -> None:
    """Tab opens the menu, Down picks a completion into the entry, and the first Enter
    plays it (it used to only close the menu)."""
    start_game(tmux)
    tmux.type("spawn vang")
    tmux.keys("Tab")
    tmux.wait_for("spawn vanguard-herald#2 e1")  # the menu: both copies
    tmux.keys("Down", "Down")
    tmux.wait_for("A> spawn vanguard-herald#2 e1")
    tmux.keys("Enter")
    pane = tmux.wait_for("Played: spawn vanguard-herald#2 e1")
    row1 = next(line for line in pane.splitlines() if line.startswith("1 |"))
    assert re.fullmatch(r"A:v-\S*#2", row1.split("|")[5].strip())
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")


def game_pid(tmux: Tmux) -> int:
    """The pid of the dbnet process the pane's shell runs."""
    shell_pid = tmux.run("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
    children = Path(f"/proc/{shell_pid}/task/{shell_pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_leaves_the_full_screen_as_ctrl_c_does(
    tmux: Tmux, tmp_path: Path, number: signal.Signals
) -> None:
    path = tmp_path / "signalled.dbnr"
    start_game(tmux, "--replay", str(path), "--bot", "random")
    os.kill(game_pid(tmux), number)
    tmux.wait_for(f"EXIT={128 + number}")
    pane = tmux.text()
    assert f"Stopped by {number.name}; the game is saved and can be resumed." in pane
    assert f"Replay saved (unfinished): {path}" in pane
    assert f"Go on with it: dbnet play --resume {path}\n" in pane
    assert "Traceback" not in pane
    assert_terminal_usable(tmux)


def test_a_closed_terminal_ends_the_game_saved(tmux: Tmux, tmp_path: Path) -> None:
    """The terminal window closed: the process ends (no hang on a terminal that is gone)
    and the game resumes from its file alone."""
    path = tmp_path / "closed.dbnr"
    start_game(tmux, "--replay", str(path), "--bot", "random")
    pid = game_pid(tmux)
    tmux.run("new-window", "-d", "-t", "t")  # keeps the server once the game's window goes
    tmux.run("kill-pane", "-t", "t:0.0")  # its shell and the game get SIGHUP
    deadline = time.monotonic() + 20
    while Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid):
        assert time.monotonic() < deadline, "the game did not end when its terminal closed"
        time.sleep(0.1)
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "play", "--plain", "--resume", str(path)],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "against the random bot as B" in result.stdout


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return "zombie"


def test_an_option_given_to_a_resumed_game_says_what_it_replaces(
    tmux: Tmux, tmp_path: Path
) -> None:
    path = tmp_path / "replaced.dbnr"
    start_game(tmux, "--replay", str(path), "--bot", "random")
    tmux.keys("C-q")
    tmux.wait_for("Quit? The game is saved")
    tmux.keys("y")
    tmux.wait_for("EXIT=0")
    command = [sys.executable, "-m", "dbnet", "play", "--resume", str(path), "--bot", "easy"]
    tmux.type("clear; " + shlex.join(command) + "; echo EXIT=$?")
    tmux.keys("Enter")
    pane = tmux.wait_for("Your decision: A")
    log = " ".join(" ".join(line[:56] for line in pane.splitlines()).split())  # no panel
    assert "--bot easy: given on the command line, it replaces --bot random of this game" in log
    assert "easy bot" in pane
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
