"""``help`` at every step of ``dbnet play --plain``: a real process, stdin and stdout as
pipes, asked for help at each of its prompts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dbnet.cli import build_parser
from dbnet.commands import play
from dbnet.engine import DecisionKind
from dbnet.match.decision_help import DECISION_HELP
from dbnet.match.story import IDLE_STRIKE

from .terminal import Terminal, listed_choices

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warbands"

# Words each step's prompt shows (match.render.describe_pending), by the kind of step.
STEP_WORDS = {
    DecisionKind.SPAWN: " to spawn (",
    DecisionKind.ACTION: "'shift' or 'strike'",
    DecisionKind.SHIFT: " is shifting: ",
    DecisionKind.STRIKE: " is striking: ",
    DecisionKind.DAMAGE: "Assign exactly ",
    DecisionKind.FATE: "reached both defense and life",
    DecisionKind.RESOLVE: "deals with marked miniatures",
    DecisionKind.BLADE: "to a blade ability",
    DecisionKind.TARGET: " chooses the targets of ",
    DecisionKind.REROLL: " may reroll up to ",
    DecisionKind.ORDER: "triggered abilities happen together",
}


def step_kind(text: str) -> DecisionKind:
    """The kind of step a prompt's text asks for (the last one it names)."""
    found = {kind: text.rfind(words) for kind, words in STEP_WORDS.items()}
    kind = max(found, key=lambda k: found[k])
    assert found[kind] >= 0, f"no step named before the prompt:\n{text[-800:]}"
    return kind


def test_help_answers_at_every_step_of_a_game(tmp_path: Path) -> None:
    """Seeded games against the random bot, 'help' typed at every prompt before a listed
    choice: help always answers with the step's rules and the game goes on, through the
    place/bury step after a combat (which once ended the game with a traceback)."""
    reached: set[DecisionKind] = set()
    wanted = {DecisionKind.RESOLVE, DecisionKind.FATE, DecisionKind.DAMAGE}
    warbands = ("--warband", str(EXAMPLES / "hive-terror.toml"))
    for seed in range(1, 6):
        rng = random.Random(seed)
        term = Terminal("--plain", "--seed", str(seed), "--bot", "random", *warbands, cwd=tmp_path)
        prompts = 0
        while prompts < 400 and not wanted <= reached:
            text, prompted = term.read()
            if not prompted:
                break
            kind = step_kind(text)
            term.send("help")
            answer, prompted = term.read()
            assert prompted, f"help at a {kind.name} step ended the game:\n{answer[-2000:]}"
            assert "Traceback" not in answer
            assert DECISION_HELP[kind].split(":")[0] in answer.replace("\n", " "), answer
            reached.add(kind)
            term.send(rng.choice(listed_choices(text)))
            prompts += 1
        term.send("quit")
        code, _rest, err = term.finish()
        assert code == 0, err
        assert err == ""
        if wanted <= reached:
            break
    assert wanted <= reached, sorted(k.name for k in wanted - reached)


def test_an_error_while_showing_is_one_line_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line interface's help, board, choices, card and log never change the game: an
    internal error in one of them is said in one line, and the prompt comes back."""

    def broken(*args: object) -> list[str]:
        raise ValueError("zip() argument 2 is shorter than argument 1\nmore words")

    for name in ("pending_help", "render_position", "explain_pending", "describe_mini"):
        monkeypatch.setattr(play, name, broken)
    args = build_parser().parse_args(
        ["play", "--plain", "--seed", "3", "--replay", str(tmp_path / "game.dbnr")]
    )
    lines = iter(["help", "board", "choices", "show lantern-page", "log", "quit"])
    said: list[str] = []
    session = play.Session.start(args, lambda prompt: next(lines), said.append)
    try:
        assert session.loop() == 0
    finally:
        session.replay.close()
    failed = [line for line in said if line.startswith("could not show")]
    reason = "(ValueError: zip() argument 2 is shorter than argument 1); the game goes on"
    assert failed == [
        f"could not show the position {reason}",  # before the prompt
        f"could not show the help {reason}",
        f"could not show the board {reason}",
        f"could not show the choices {reason}",
        f"could not show the card {reason}",
    ]
    assert said[-2:] == ["quit: game adjourned", f"Go on with it: {session.resume_command()}"]


def test_your_own_idle_strike_is_told_and_help_warns_of_it(tmp_path: Path) -> None:
    """'strike' with no creature of yours beside an enemy ends the action phase: said in
    the same words as the bot's idle strike, and 'help' says so before."""
    term = Terminal("--plain", "--seed", "3", "--bot", "random", cwd=tmp_path)
    rng = random.Random(3)
    for _ in range(60):
        text, prompted = term.read()
        assert prompted
        if step_kind(text) is DecisionKind.ACTION and "strike" in listed_choices(text):
            break
        choices = [c for c in listed_choices(text) if c != "strike"]
        term.send(rng.choice(choices))
    else:
        raise AssertionError("no action phase reached")
    term.send("help")
    answer, _ = term.read()
    flat = " ".join(answer.split())
    assert "None of your creatures shares a cell with an enemy creature now" in flat, answer
    term.send("strike")
    answer, _ = term.read()
    assert " ".join(IDLE_STRIKE.split()) in " ".join(answer.split()), answer
    term.send("quit")
    assert term.finish()[0] == 0


def test_an_internal_error_saves_the_game_and_says_how_it_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An internal error while a choice is played is no traceback: one line, the game so
    far saved, and the line that goes on with it."""
    from dbnet.match.local import LocalGame

    def broken(self: LocalGame, text: str) -> list[object]:
        raise RuntimeError(f"cannot play {text}\nsecond line")

    monkeypatch.setattr(LocalGame, "play", broken)
    monkeypatch.setattr(play, "_read_line", lambda prompt: "done")
    monkeypatch.setenv("DBNET_HOME", str(tmp_path / "home"))
    path = tmp_path / "broken.dbnr"
    args = build_parser().parse_args(["play", "--plain", "--seed", "3", "--replay", str(path)])
    assert play.run(args) == 1
    out, err = capsys.readouterr()
    assert err == "dbnet play: internal error (RuntimeError: cannot play done): game adjourned\n"
    assert out.splitlines()[-1] == f"Go on with it: dbnet play --resume {path}"
    assert "Traceback" not in out + err
