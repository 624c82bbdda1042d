"""A resumed ``dbnet play`` keeps what defined the game (the bot, its budget, the seats,
the seed), kept beside the replay in FILE.game: ``--resume FILE`` alone is enough, and an
option given replaces its term with one line that says so. Real processes, real files."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from dbnet.engine import Player
from dbnet.replay.file import load_replay
from dbnet.replay.terms import LocalTerms, load_terms, terms_path

from .terminal import Terminal
from .test_play import run_play

RESUME_LINE = re.compile(r"^Go on with it: (.+)$", re.MULTILINE)


def quit_at_once(term: Terminal) -> tuple[str, str]:
    """Quit at the first prompt: everything printed, and the resume command."""
    _, prompted = term.read()
    assert prompted
    term.send("quit")
    code, rest, err = term.finish()
    out = "".join(term.transcript) + rest
    assert (code, err) == (0, ""), out[-2000:]
    found = RESUME_LINE.search(out)
    assert found, out[-2000:]
    return out, found.group(1)


def test_the_bot_and_its_budget_are_kept_and_an_option_replaces_one(tmp_path: Path) -> None:
    path = tmp_path / "hard.dbnr"
    args = ("--plain", "--bot", "hard", "--playouts", "3", "--side", "B", "--seed", "11")
    out, command = quit_at_once(Terminal(*args, "--replay", str(path), cwd=tmp_path))
    assert "against the hard bot as A" in out
    assert command == f"dbnet play --resume {path}"  # nothing else needed
    game_id = load_replay(path).header.game_id
    kept = LocalTerms(person=Player.B, bot="hard", playouts=3, seed=11)
    assert load_terms(path, game_id) == kept
    replay = path.read_bytes()

    # the printed command alone plays the same bot, the same seat, the same seed
    out, again = quit_at_once(Terminal("--plain", "--resume", str(path), cwd=tmp_path))
    assert "You are B (" in out
    assert "against the hard bot as A" in out
    assert "replaces" not in out
    assert again == command
    assert path.read_bytes().startswith(replay)  # appended to, never rewritten

    # an option given replaces its term, says so in one line, and is kept from then on
    out, _ = quit_at_once(
        Terminal("--plain", "--resume", str(path), "--bot", "random", cwd=tmp_path)
    )
    said = [line for line in out.splitlines() if "replaces" in line]
    assert said == ["--bot random: given on the command line, it replaces --bot hard of this game"]
    assert "against the random bot as A" in out
    assert load_terms(path, game_id) == LocalTerms(Player.B, "random", playouts=3, seed=11)
    out, _ = quit_at_once(Terminal("--plain", "--resume", str(path), cwd=tmp_path))
    assert "against the random bot as A" in out


def test_end_of_input_and_ctrl_c_print_the_same_resume_line(tmp_path: Path) -> None:
    path = tmp_path / "normal.dbnr"
    args = ("--plain", "--bot", "normal", "--think", "0.2", "--replay", str(path))
    ended = run_play(tmp_path, *args, stdin="")
    assert ended.returncode == 1
    found = RESUME_LINE.search(ended.stdout)
    assert found, ended.stdout
    home = tmp_path / "dbnet-home"
    assert found.group(1) == f"DBNET_HOME={home} dbnet play --resume {path}"
    assert terms_path(path).exists()

    term = Terminal("--plain", "--resume", str(path), cwd=tmp_path)
    first, _ = term.read()
    assert "against the normal bot as B" in first
    term.proc.send_signal(signal.SIGINT)
    code, rest, err = term.finish()
    assert code == 130, err
    found = RESUME_LINE.search(rest)
    assert found, rest
    assert found.group(1) == f"DBNET_HOME={home} dbnet play --resume {path}"


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_saves_the_game_and_prints_the_line_that_resumes_it(
    tmp_path: Path, number: signal.Signals
) -> None:
    """SIGTERM (a service stopping it) or SIGHUP (a closed terminal, a logout) at the
    prompt: as Ctrl-C, the game is adjourned, the resume line printed, and the exit code
    says which signal (128 + its number)."""
    path = tmp_path / "stopped.dbnr"
    term = Terminal(
        "--plain", "--bot", "random", "--seed", "4", "--replay", str(path), cwd=tmp_path
    )
    term.read()
    term.proc.send_signal(number)
    code, rest, err = term.finish()
    assert (code, err) == (128 + number, "")
    assert f"stopped by {number.name}: game adjourned" in rest
    found = RESUME_LINE.search(rest)
    assert found, rest
    assert found.group(1) == f"dbnet play --resume {path}"
    out, _ = quit_at_once(Terminal("--plain", "--resume", str(path), cwd=tmp_path))
    assert "against the random bot as B" in out
