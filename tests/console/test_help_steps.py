"""F1 and 'help' at every kind of step in the full-screen client, and a part of the
screen that cannot be drawn: one line, and the game goes on."""

from __future__ import annotations

import asyncio
import random
import shlex
import sys
from pathlib import Path

import pytest

from dbnet.bots import make_bot
from dbnet.console import view
from dbnet.console.launch import default_setup
from dbnet.console.screen import Tab
from dbnet.console.session import LocalSession
from dbnet.engine import Decision, DecisionKind, Game, format_choice
from dbnet.match.decision_help import DECISION_HELP, engaged
from dbnet.match.story import IDLE_STRIKE

from .helpers import ENTER, F1, F2, example_setup, hotseat_at, pending_kind, running
from .tmux import Tmux

PYRE = ("hive-terror", "infernal-pyre")
# Each kind of step a person meets in a game without Limited, and example warbands whose
# random games reach it from the first seed tried (the order of simultaneous effects,
# rarer, is checked on the engine's games in tests/match/test_render.py).
KINDS = {
    DecisionKind.SPAWN: (PYRE, 1),
    DecisionKind.ACTION: (PYRE, 1),
    DecisionKind.SHIFT: (PYRE, 1),
    DecisionKind.STRIKE: (PYRE, 1),
    DecisionKind.DAMAGE: (PYRE, 1),
    DecisionKind.FATE: (PYRE, 1),
    DecisionKind.RESOLVE: (PYRE, 1),
    DecisionKind.BLADE: (PYRE, 1),
    DecisionKind.TARGET: (PYRE, 1),
    DecisionKind.DEATHBLOW: (PYRE, 2),
    DecisionKind.REROLL: (("mirror-court", "hive-and-blood"), 4),
}


def help_heading(kind: DecisionKind) -> str:
    """The first words of a step's help, as the panel shows them."""
    return DECISION_HELP[kind].split(":")[0]


def flat(screen: str) -> str:
    return " ".join(screen.split())


@pytest.mark.parametrize("kind", list(KINDS), ids=[k.name for k in KINDS])
def test_f1_and_help_answer_at_a_step(kind: DecisionKind) -> None:
    """A hotseat game typed by random bots up to a step of ``kind`` (the place/bury step
    after a combat once froze the screen on a traceback): F1 shows the step's help, the
    'help' entry too, and the game goes on."""
    (a, b), first = KINDS[kind]
    session = None
    for seed in range(first, first + 10):
        try:
            session = hotseat_at(example_setup(a, b), seed, pending_kind(kind))
            break
        except AssertionError:
            continue
    assert session is not None, f"no seed reaches a {kind.name} step"

    async def scenario() -> None:
        async with running(session, columns=120, rows=40) as d:
            await d.keys(F1)
            assert d.console.tab is Tab.HELP
            assert d.console.drawing_error is None
            assert help_heading(kind) in flat(d.screen())
            await d.keys(F2 + "help" + ENTER)
            assert d.console.tab is Tab.HELP
            assert help_heading(kind) in flat(d.screen())
            assert d.console.drawing_error is None
            assert d.task is not None
            assert not d.task.done()

    asyncio.run(scenario())


def test_a_panel_that_cannot_be_drawn_is_one_line_and_the_game_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(game: Game, width: int) -> list[view.Line]:
        raise ValueError("zip() argument 2 is shorter than argument 1")

    monkeypatch.setattr(view, "help_lines", broken)

    async def scenario() -> None:
        async with running() as d:
            await d.keys(F1)
            screen = d.screen()
            line = "Could not draw the Help panel: ValueError: zip() argument 2 is shorter"
            assert line in flat(screen)
            assert "Traceback" not in screen
            assert d.console.message.startswith(line)
            await d.keys(F2)  # the other panels still draw, and a choice is played
            assert d.console.tab is Tab.CHOICES
            entry = d.console.choice_items()[0]
            await d.keys(entry + ENTER)
            await d.wait_for(lambda: d.console.message == f"Played: {entry}", "the entry played")
            assert d.task is not None
            assert not d.task.done()

    asyncio.run(scenario())


def resolve_replay(seed: int) -> Path:
    """A hotseat game of this machine's owner (no seed: it resumes from its file alone)
    typed by random bots up to a place/bury step, saved unfinished; its replay."""
    for _attempt in range(20):
        session = LocalSession.hotseat_game(example_setup("hive-terror", "infernal-pyre"))
        bots = (make_bot("random", random.Random(seed)), make_bot("random", random.Random(-seed)))
        for _ in range(5000):
            asyncio.run(session.advance(lambda: None))
            game, player = session.game, session.local_player()
            if player is None:
                break
            if pending_kind(DecisionKind.RESOLVE)(game):
                path = session.replay_path
                session.close()
                assert path is not None
                return path
            session.submit(format_choice(game, bots[player].choose(game)))
        session.close()
        seed += 1
    raise AssertionError("no game reached a place/bury step")


def test_f1_at_the_place_or_bury_step_in_a_real_terminal(tmux: Tmux) -> None:
    path = resolve_replay(1)
    command = [sys.executable, "-m", "dbnet", "play", "--resume", str(path)]
    tmux.type(shlex.join(command) + "; echo EXIT=$?")
    tmux.keys("Enter")
    tmux.wait_for("deals with marked miniatures")
    tmux.keys("F1")
    pane = tmux.wait_for("After the combat")
    assert "Traceback" not in pane
    assert "Press ENTER" not in pane
    tmux.type("help")
    tmux.keys("Enter")
    tmux.wait_for("Help for this step is in the panel (F1).")
    tmux.keys("C-q")
    tmux.wait_for("Quit? The game is saved")
    tmux.keys("y")
    pane = tmux.wait_for("EXIT=0")
    assert "Traceback" not in tmux.text()


def test_help_and_the_choices_say_when_a_strike_would_find_nothing() -> None:
    def idle_action(game: Game) -> bool:
        pending = game.pending
        return (
            pending_kind(DecisionKind.ACTION)(game)
            and isinstance(pending, Decision)
            and not engaged(game, pending.player)
        )

    session = hotseat_at(default_setup(), 3, idle_action)

    async def scenario() -> None:
        async with running(session, columns=120, rows=40) as d:
            await d.keys(F2)
            panel = flat(view.plain(d.console._panel_lines()))
            assert "strike = attacks nothing: no creature of yours shares a cell" in panel
            await d.keys(F1)
            panel = flat(view.plain(d.console._panel_lines()))
            assert "'strike' would attack nothing and end this action phase" in panel
            await d.keys("strike" + ENTER)
            await d.wait_for(
                lambda: any(IDLE_STRIKE in line.words for line in d.session.log), "the strike told"
            )

    asyncio.run(scenario())


def test_a_long_error_is_shown_whole_at_80x24() -> None:
    """An illegal entry's answer names the legal choices: at 80x24 it takes the lines it
    needs (the board gives up its spare lines), never cut after three."""

    async def scenario() -> None:
        async with running(columns=80, rows=24) as d:
            await d.keys("spawn nonsense e1" + ENTER)
            message = d.console.message
            assert message.startswith("Not played: you cannot spawn nonsense e1")
            assert len(view.wrap(message, 80, "")) > 3
            screen = d.screen()
            assert len(screen.splitlines()) <= 24
            status = screen[screen.index("Not played: ") :]
            assert flat(status) == flat(message)
            assert "Turn 1" in screen.splitlines()[0]  # the top bar is still there
            assert "+----a-----+" in screen  # and the whole board

    asyncio.run(scenario())
