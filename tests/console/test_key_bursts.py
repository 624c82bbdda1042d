"""Every full-screen app takes any keys, typed ahead in bursts, on a terminal resized
at any moment (even within one draw), and never fails: no key handler or draw may raise
(prompt-toolkit would print the error and wait for Enter, the app dead under the
person's hands).

Bursts of random keys (seeded, so a failure repeats) are read several at a time before
the next draw, as when someone types ahead or holds a key down. With the fixes undone,
these seeds find both failures they were written after: the builder reaching past its
shortened warband (seed 4) and the play screen drawing its log's cursor past its last
line (every seed).
"""

from __future__ import annotations

import asyncio
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input

from dbnet.catalog import load_catalog
from dbnet.console.app import ConsoleApp
from dbnet.console.builder import Builder, Draft
from dbnet.console.menu import WarbandsScreen
from dbnet.console.picker import Picker
from dbnet.console.replay_app import ReplayApp
from dbnet.console.replay_view import ReplayModel

from .helpers import (
    CTRL_U,
    DOWN,
    ENTER,
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    PAGE_DOWN,
    PAGE_UP,
    TAB,
    UP,
    SizedOutput,
    bot_session,
)

LEFT, RIGHT, HOME, END, BACKSPACE, DELETE = (
    "\x1b[D",
    "\x1b[C",
    "\x1b[H",
    "\x1b[F",
    "\x7f",
    "\x1b[3~",
)
KEYS = [UP, DOWN, LEFT, RIGHT, HOME, END, PAGE_UP, PAGE_DOWN, TAB, ENTER, BACKSPACE, DELETE]
KEYS += [F1, F2, F3, F4, F5, F6, CTRL_U, *"ad+-/shnpg 150x?yetwmNP"]
WORDS = ["spawn ", "move ", "done", "shift", "strike", "help", "show ", "e1", "c3", "turn 2"]
EDITING = [UP, DOWN, DOWN + "a", TAB, "a", "+", "-", "d", "dd", DELETE]  # the builder's own
SIZES = [(80, 24), (120, 40), (100, 30), (60, 15), (200, 60)]
BURSTS = 120
REPLAY = sorted((Path(__file__).resolve().parents[2] / "replays").glob("*.dbnr"))[0]

Starter = Callable[[PipeInput, SizedOutput, Path], Application[Any]]
"""Makes an app on a pipe, a terminal and a home folder: its prompt-toolkit application."""


class JitteryOutput(SizedOutput):
    """A terminal being resized by hand: any look at its size may find a new one, even
    two looks within one draw."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(80, 24)
        self.rng = rng

    def get_size(self) -> Size:
        if self.rng.random() < 0.05:
            self.columns, self.rows = self.rng.choice(SIZES)
        return super().get_size()


def builder(pipe: PipeInput, output: SizedOutput, home: Path) -> Application[Any]:
    draft = Draft("Pack", home / "pack.toml", load_catalog())
    return Builder(draft, input=pipe, output=output, colour=False).app


def viewer(pipe: PipeInput, output: SizedOutput, home: Path) -> Application[Any]:
    model = ReplayModel.from_bytes(REPLAY.read_bytes(), where=str(REPLAY))
    return ReplayApp(model, input=pipe, output=output, colour=False).app


def warbands(pipe: PipeInput, output: SizedOutput, home: Path) -> Application[Any]:
    """The menu's list of warbands (``Picker``): it ends on Enter, Escape or q."""
    return Picker(WarbandsScreen(load_catalog()), input=pipe, output=output, colour=False).app


def play(pipe: PipeInput, output: SizedOutput, home: Path) -> Application[Any]:
    return ConsoleApp(bot_session(), input=pipe, output=output, colour=False).app


async def type_bursts(start: Starter, seed: int, home: Path) -> list[str]:
    """Type ``BURSTS`` bursts of random keys into the app ``start`` makes, on a terminal
    resized now and then; the errors it met (an app that ends by its own keys is fine)."""
    rng = random.Random(seed)
    errors: list[str] = []

    def caught(app: Application[Any], loop: object, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        errors.append("".join(traceback.format_exception(exc)) if exc else str(context))

    with pytest.MonkeyPatch.context() as patch, create_pipe_input() as pipe:
        patch.setattr(Application, "_handle_exception", caught)
        output = JitteryOutput(random.Random(-seed))
        app = start(pipe, output, home)
        task = asyncio.create_task(app.run_async())
        await asyncio.sleep(0.05)
        for _ in range(BURSTS):
            if task.done():
                break
            burst = "".join(
                rng.choice(KEYS if rng.random() < 0.5 else EDITING)
                if rng.random() < 0.8
                else rng.choice(WORDS)
                for _ in range(rng.randint(1, 6))
            )
            pipe.send_text(burst)
            if rng.random() < 0.2:
                app._on_resize()
            await asyncio.sleep(rng.choice([0, 0.002, 0.01]))
        if not task.done():
            app.exit(result=0)
        await asyncio.wait_for(task, 10)
    return errors


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "start", [builder, viewer, warbands, play], ids=["builder", "viewer", "warbands", "play"]
)
def test_bursts_of_keys_never_fail_an_app(start: Starter, seed: int, tmp_path: Path) -> None:
    errors = asyncio.run(type_bursts(start, seed, tmp_path))
    assert not errors, errors[0]
