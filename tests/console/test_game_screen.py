"""The play client's screen in-process (``console.game_screen``): what it draws at 80x24,
after a resize and from B's side, and a click on a choice."""

from __future__ import annotations

from prompt_toolkit.data_structures import Size

from dbnet.console.session import LocalSession
from dbnet.engine import Player

from .helpers import (
    F2,
    F3,
    SizedOutput,
    bot_session,
    run,
    running,
)


@run
async def test_a_click_picks_a_choice() -> None:
    async with running() as d:
        entry = d.console.choice_items()[1]  # the panel lists "spawn ..." once, then names
        await d.keys(F2)
        lines = d.screen().splitlines()
        row = next(i for i, line in enumerate(lines) if line[59:] == entry.removeprefix("spawn"))
        click = f"\x1b[<0;65;{row + 1}"  # SGR mouse report, 1-based column and row
        await d.keys(click + "M" + click + "m")
        assert d.console.buffer.text == entry


@run
async def test_playing_b_turns_the_board_round() -> None:
    async with running(bot_session(side=Player.B)) as d:
        screen = d.screen().splitlines()
        assert screen[1].startswith("  +-A portal-+-A spawn--")
        assert screen[2].startswith("1 |")
        assert "\nB>" in d.screen()
        await d.keys(F3)
        panel = [line[59:] for line in d.screen().splitlines()]
        assert panel[2].startswith("B reserves")  # your own reserves first


@run
async def test_screen_fits_80x24() -> None:
    async with running() as d:
        screen = d.screen().splitlines()
        assert len(screen) == 24
        assert all(len(line) <= 80 for line in screen)
        text = "\n".join(screen)
        points = d.session.game.spawn_points
        for part in (
            "Turn 1, spawn phase of A, B went first",  # SEED's opening
            "Victory A 0/6 B 0/6 | Conquest A 0 B 0",
            "B portal",
            "A portal",
            "5pt A+B",
            f"A reserves ({points} pts)",
            "lantern-page",
            f"A you: {points} spawn pts left",
            "0 in graveyard",
            f"Your decision: A to spawn ({points} spawn points left)",
            "A>",
        ):
            assert part in text, part


@run
async def test_resize_redraws_for_the_new_size() -> None:
    async with running() as d:
        assert "5pt A+B" in d.screen()
        output = d.console.app.output
        assert isinstance(output, SizedOutput)
        output.columns, output.rows = 120, 40
        d.console.app._on_resize()
        screen = d.screen().splitlines()
        assert len(screen) == 40
        assert max(len(line) for line in screen) > 100
        assert "5 pts A+B" in "\n".join(screen)
        assert "Victory A 0/6 B 0/6 | Conquest now A 0 B 0" in screen[0]
        output.columns, output.rows = 80, 24
        d.console.app._on_resize()
        assert len(d.screen().splitlines()) == 24


class ResizingOutput(SizedOutput):
    """A terminal resized between any two looks at its size: wide, narrow, wide..."""

    def __init__(self) -> None:
        super().__init__(120, 40)
        self.looks = 0

    def get_size(self) -> Size:
        self.looks += 1
        return Size(rows=40, columns=120) if self.looks % 2 else Size(rows=24, columns=80)


@run
async def test_a_resize_in_the_middle_of_a_draw_still_draws_the_log() -> None:
    """The log's text and its cursor come from one look at the width. When the terminal
    narrowed between two looks, the cursor fell past the last line of the log drawn
    wide, and the draw failed (prompt-toolkit: list index out of range)."""
    async with running() as d:
        long = "a note that wraps in the narrow log but not in the wide one " * 2
        session = d.session
        assert isinstance(session, LocalSession)
        for _ in range(30):
            session.note(long)
        session.note("the newest note")
        d.console.app.output = ResizingOutput()
        for _ in range(4):  # the draws start on either size
            assert "the newest note" in d.screen()
