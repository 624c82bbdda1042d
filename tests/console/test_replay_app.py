"""The replay viewer in-process: keys typed through a pipe, the screen read back."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from dbnet.console import view
from dbnet.console.replay_app import ReplayApp
from dbnet.console.replay_view import ReplayModel
from dbnet.console.screen import Tab
from dbnet.console.view import NARROW_CELL, compact_token
from dbnet.engine import Game, GameSetup, Player
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.match.render import short_names
from dbnet.replay.verify import ReplayVerifier, Verdict

from .helpers import (
    CTRL_C,
    ENTER,
    F1,
    F3,
    F4,
    F5,
    F6,
    PAGE_DOWN,
    PAGE_UP,
    TIMEOUT,
    SizedOutput,
    run,
)
from .test_app import colour_codes
from .test_replay_view import FIRST, REPLAYS, tampered


def mini_named(game: Game, owner: Player | None, handle: str) -> int:
    return next(m.id for m in game.minis if m.owner is owner and m.handle == handle)


RIGHT, LEFT, HOME, END = "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F"
ESCAPE = "\x1b"


class Viewer:
    def __init__(self, app: ReplayApp, pipe: PipeInput, task: asyncio.Task[int]) -> None:
        self.app = app
        self.pipe = pipe
        self.task = task

    @property
    def model(self) -> ReplayModel:
        return self.app.model

    def tab(self) -> Tab:
        return self.app.tab

    def screen(self) -> str:
        return self.app.screen_text()

    def words(self) -> str:
        """The screen's words, lines joined: for text the screen wraps."""
        return " ".join(self.screen().split())

    def panel(self) -> str:
        """The words of the panel right of the board (80 columns: from column 59)."""
        return " ".join(" ".join(line[59:] for line in self.screen().splitlines()).split())

    async def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")
            await asyncio.sleep(0.01)

    async def keys(self, text: str) -> None:
        self.pipe.send_text(text)
        await asyncio.sleep(0.05)

    async def finish(self) -> int:
        return await asyncio.wait_for(self.task, TIMEOUT)


@asynccontextmanager
async def viewing(path: Path = FIRST, columns: int = 80, rows: int = 24) -> AsyncIterator[Viewer]:
    model = ReplayModel.from_bytes(path.read_bytes(), where=str(path))
    with create_pipe_input() as pipe:
        app = ReplayApp(model, input=pipe, output=SizedOutput(columns, rows), colour=False)
        task = asyncio.create_task(app.run_async())
        await asyncio.sleep(0.05)
        try:
            yield Viewer(app, pipe, task)
        finally:
            if not task.done():
                app.app.exit(result=0)
                await asyncio.wait_for(task, TIMEOUT)


def recorded() -> tuple[Verdict, GameSetup]:
    """FIRST's verdict and setup, read by the verifier (not by the viewer)."""
    verifier = ReplayVerifier(str(FIRST))
    verdict = verifier.run(FIRST.read_bytes())
    assert verifier.log is not None
    return verdict, verifier.log.game.setup


def first_spawn_step(model: ReplayModel) -> int:
    """The number of the game's first spawn step."""
    return next(s.number for s in model.steps if s.notation.startswith("spawn "))


@run
async def test_it_opens_at_the_start_with_the_verdict_on_top() -> None:
    verdict, setup = recorded()
    async with viewing() as v:
        screen = v.screen().splitlines()
        assert len(screen) == 24
        assert all(len(line) <= 80 for line in screen)
        assert screen[0].startswith(
            f" {FIRST.name}: complete: {verdict.winner} won by {verdict.reason}"
        )
        assert screen[1].startswith(" Turn 1, initiative phase")
        text = "\n".join(screen)
        a, b = (setup.warbands[p].name for p in (Player.A, Player.B))
        assert f"Start: A {a!r} against B {b!r}" in text
        assert "B portal" in text
        assert "A reserves" in text
        assert v.model.current == 0


@run
async def test_arrows_and_letters_step_forward_and_back() -> None:
    verdict, _ = recorded()
    async with viewing() as v:
        model = v.model
        k = first_spawn_step(model)
        await v.keys(RIGHT * k)
        assert model.current == k
        step = model.steps[k]
        spawned = model.game.minis[mini_named(model.game, step.author, step.notation.split()[1])]
        token = compact_token(spawned, short_names(model.game)[spawned.id], NARROW_CELL)
        last = model.last
        said = f"Step {k} of {last}, entry {step.seq}, turn 1: {step.words}."
        assert said in v.words()
        assert token in v.screen()  # on the board
        await v.keys(LEFT)
        assert model.current == k - 1
        before = model.steps[k - 1]
        assert f"Step {k - 1} of {last}, entry {before.seq}, turn 1: {before.notation}" in v.words()
        assert token not in v.screen()
        await v.keys("nnp")
        assert model.current == k
        await v.keys(HOME)
        assert model.current == 0
        await v.keys(LEFT)
        assert v.app.message == "This is the start: nothing was played before it."
        await v.keys(END)
        assert model.current == model.last
        assert f"COSIGN: agrees that {verdict.winner} wins." in v.words()


@run
async def test_page_keys_and_capitals_jump_by_turn() -> None:
    async with viewing() as v:
        await v.keys(PAGE_DOWN + PAGE_DOWN)
        assert v.model.current == v.model.first_of_turn(2)
        assert " Turn 2, " in v.screen().splitlines()[1]
        await v.keys("N")
        assert v.model.current == v.model.first_of_turn(3)
        await v.keys(RIGHT + PAGE_UP)
        assert v.model.current == v.model.first_of_turn(3)
        await v.keys("P")
        assert v.model.current == v.model.first_of_turn(2)


@run
async def test_typing_a_turn_jumps_to_it() -> None:
    async with viewing() as v:
        last_turn, last = v.model.turns[-1], v.model.last
        assert last_turn >= 5
        for typed, turn in ((":3", 3), ("turn 5", 5), ("2", 2), (f"t {last_turn}", last_turn)):
            await v.keys(typed + ENTER)
            assert v.model.current == v.model.first_of_turn(turn), typed
            assert v.app.message == f"Turn {turn}, its first step."
            assert v.app.buffer.text == ""
        await v.keys(f":{last_turn + 2}" + ENTER)
        assert v.app.message == (
            f"The game has no turn {last_turn + 2} (it has turns 1 to {last_turn})."
        )
        assert v.model.current == v.model.first_of_turn(last_turn)
        await v.keys("turn three" + ENTER)
        assert v.app.message.startswith("'turn N' wants a turn number")
        await v.keys("#12" + ENTER)
        assert v.model.current == 12
        await v.keys(f"step {last + 80}" + ENTER)
        assert v.app.message == f"There is no step {last + 80}: steps go from 0 to {last}."
        await v.keys("fly" + ENTER)
        assert v.app.message == "Unknown command 'fly'. Type 'help' (or press F1)."


@run
async def test_letters_are_text_once_a_command_is_begun() -> None:
    async with viewing() as v:
        # a name with a letter that is also a key: its n and p are typed, not steps
        named = next(m for m in v.model.game.minis if m.owner is Player.B and "n" in m.handle)
        await v.keys(f"show {named.handle}")
        assert v.model.current == 0
        assert v.app.buffer.text == f"show {named.handle}"
        await v.keys(ENTER)
        assert v.tab() is Tab.CARD
        assert named.label[:20] in v.screen()
        await v.keys("xyz" + ESCAPE)  # a lone Escape is told from a key's start by a pause
        await v.wait_for(lambda: v.app.buffer.text == "", "Escape to clear the line")


@run
async def test_panels_and_help() -> None:
    async with viewing() as v:
        verdict, _ = recorded()
        await v.keys(F1)
        screen = v.screen()
        assert "Help (F1)" in screen
        last_turn = v.model.turns[-1]
        won = f"Verdict: complete: {verdict.winner} won by victory on turn {last_turn}"
        assert won in v.panel()
        await v.keys(F4)
        assert "A graveyard" in v.screen()
        await v.keys(END + F5)
        assert v.tab() is Tab.LOG
        assert "COSIGN" in v.screen()
        await v.keys(F6)
        assert "show NAME" in v.screen()
        await v.keys("help" + ENTER)
        assert v.tab() is Tab.HELP


@run
async def test_q_quits_with_the_verdicts_exit_code() -> None:
    async with viewing() as v:
        await v.keys("q")
        assert await v.finish() == 0


@run
async def test_ctrl_c_quits_at_once() -> None:
    async with viewing() as v:
        await v.keys(RIGHT + CTRL_C)
        assert await v.finish() == EXIT_INTERRUPTED


def test_an_invalid_file_says_so_on_top_and_stops_where_it_is_bad(tmp_path: Path) -> None:
    bad = tampered(FIRST, tmp_path, 30)

    async def scenario() -> None:
        async with viewing(bad) as v:
            screen = v.screen().splitlines()
            assert screen[0].startswith(" INVALID: tampered-30.dbnr: invalid at record 30")
            assert "shown up to entry 28." in screen[1]
            await v.keys(END)
            assert "The replay stops here." in v.words()
            await v.keys(RIGHT)
            assert v.app.message.startswith("The replay stops here: the next record is invalid")
            await v.keys("q")
            assert await v.finish() == 1  # as dbnet replay --plain: an invalid file

    asyncio.run(scenario())


def test_every_recorded_game_fits_80x24_at_every_turn() -> None:
    async def scenario(path: Path) -> None:
        async with viewing(path) as v:
            for turn in [0, *v.model.turns]:
                if turn:
                    v.model.jump_to_turn(turn)
                screen = v.screen().splitlines()
                assert len(screen) == 24
                assert all(len(line) <= 80 for line in screen)
                assert screen[-1].startswith(("<- -> step", "Turn"))

    for path in sorted(REPLAYS.glob("*.dbnr")):
        asyncio.run(scenario(path))


def draw(colour: bool | None, path: Path) -> str:
    """What the viewer writes to an xterm while it opens, as one string."""

    async def scenario() -> str:
        sink = io.StringIO()
        output = Vt100_Output(sink, lambda: Size(rows=24, columns=80), term="xterm")
        model = ReplayModel.from_bytes(path.read_bytes(), where=str(path))
        with create_pipe_input() as pipe:
            app = ReplayApp(model, input=pipe, output=output, colour=colour)
            task = asyncio.create_task(app.run_async())
            for _ in range(200):
                if "B portal" in sink.getvalue():
                    break
                await asyncio.sleep(0.01)
            pipe.send_text("q")
            await asyncio.wait_for(task, TIMEOUT)
        return sink.getvalue()

    return asyncio.run(scenario())


def test_no_color_means_no_colour_even_for_an_invalid_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tampered(FIRST, tmp_path, 30)
    assert colour_codes(draw(colour=True, path=bad))  # red for the verdict, by default
    monkeypatch.setenv("NO_COLOR", "1")
    written = draw(colour=None, path=bad)
    assert "INVALID: tampered-30.dbnr" in written
    assert re.search(r"\x1b\[0;[0-9;]*1[;m]", written)  # bold is still there
    assert colour_codes(written) == []


@run
async def test_an_internal_error_ends_the_viewer_cleanly() -> None:
    async with viewing() as v:

        def broken() -> bool:
            raise RuntimeError("the model fell over")

        v.app.model.forward = broken  # type: ignore[method-assign]
        await v.keys(RIGHT)
        assert await v.finish() == 1
        assert v.app.error is not None
        assert "RuntimeError: the model fell over" in v.app.error


@run
async def test_a_panel_that_cannot_be_drawn_is_one_line_and_the_viewer_goes_on() -> None:
    def broken(game: Game, width: int, first: Player = Player.A) -> list[view.Line]:
        raise ValueError("no reserves today")

    async with viewing() as v:
        original = view.reserve_lines
        view.reserve_lines = broken
        try:
            await v.keys(F3)
            assert "Could not draw the Reserves panel: ValueError: no reserves today" in v.panel()
            assert "Traceback" not in v.screen()
            await v.keys(F4)
            assert "A graveyard" in v.screen()
            assert not v.task.done()
        finally:
            view.reserve_lines = original
