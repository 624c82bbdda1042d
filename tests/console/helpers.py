"""Drive the console client in-process: keys through a pipe, the screen read back as text."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from dbnet.bots import make_bot
from dbnet.catalog import load_catalog, load_map, load_warband
from dbnet.console.app import ConsoleApp
from dbnet.console.launch import default_setup
from dbnet.console.session import LocalSession, Session
from dbnet.engine import Decision, DecisionKind, Game, GameSetup, Player, format_choice

TIMEOUT = 10.0
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warbands"

# What a terminal sends for these keys (xterm).
UP = "\x1b[A"
DOWN = "\x1b[B"
TAB = "\t"
ENTER = "\r"
F1, F2, F3, F4, F5, F6 = "\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS", "\x1b[15~", "\x1b[17~"
PAGE_UP, PAGE_DOWN = "\x1b[5~", "\x1b[6~"
CTRL_C = "\x03"
CTRL_Q = "\x11"
CTRL_U = "\x15"


class SizedOutput(DummyOutput):
    """An output that draws nothing but says how big the terminal is."""

    def __init__(self, columns: int, rows: int) -> None:
        self.columns = columns
        self.rows = rows

    def get_size(self) -> Size:
        return Size(rows=self.rows, columns=self.columns)


# The first seed (searched from 1) whose game between the default warbands opens with B,
# the bot, going first after a single initiative roll and leaves A at least 8 spawn
# points: the bot's spawns are on the first screen and A can afford two copies of a
# miniature. The tests read every other fact of the opening from the game itself.
SEED = 2


def bot_session(seed: int = SEED, side: Player = Player.A) -> LocalSession:
    """A person against the greedy bot, no pause between bot steps, repeatable dice."""
    return LocalSession.against_bot(default_setup(side), side=side, seed=seed, bot_delay=0)


class Driver:
    """A running ConsoleApp with keys typed through a pipe."""

    def __init__(self, console: ConsoleApp, pipe: PipeInput) -> None:
        self.console = console
        self.pipe = pipe
        self.task: asyncio.Task[int] | None = None

    @property
    def session(self) -> Session:
        return self.console.session

    def screen(self) -> str:
        return self.console.screen_text()

    async def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        """Poll ``condition`` until it holds; fail with the screen after TIMEOUT seconds."""
        deadline = time.monotonic() + TIMEOUT
        while not condition():
            if self.task is not None and self.task.done():
                raise AssertionError(f"the app ended while waiting for {what}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")
            await asyncio.sleep(0.01)

    async def ready(self) -> None:
        """Wait until the person owes a decision and no bot is busy."""
        await self.wait_for(
            lambda: self.session.local_player() is not None and not self.console._advancing,
            "the person's decision",
        )

    async def keys(self, text: str) -> None:
        """Type ``text`` and let the app read it."""
        self.pipe.send_text(text)
        await asyncio.sleep(0.05)

    async def finish(self) -> int:
        assert self.task is not None
        return await asyncio.wait_for(self.task, TIMEOUT)


@asynccontextmanager
async def _running(
    session: Session, columns: int, rows: int, colour: bool
) -> AsyncIterator[Driver]:
    with create_pipe_input() as pipe:
        console = ConsoleApp(session, input=pipe, output=SizedOutput(columns, rows), colour=colour)
        driver = Driver(console, pipe)
        driver.task = asyncio.create_task(console.run_async())
        try:
            await driver.ready()
            yield driver
        finally:
            if not driver.task.done():
                console.app.exit(result=0)
                await asyncio.wait_for(driver.task, TIMEOUT)


def running(
    session: Session | None = None, columns: int = 80, rows: int = 24, *, colour: bool = False
) -> AbstractAsyncContextManager[Driver]:
    """``async with running() as d:`` a console on ``session`` (default: bot_session())."""
    return _running(session if session is not None else bot_session(), columns, rows, colour)


def hotseat_at(
    setup: GameSetup, seed: int, wanted: Callable[[Game], bool], limit: int = 5000
) -> LocalSession:
    """A hotseat game (both seats at this keyboard, both replays of the signed log) whose
    decisions two random bots type until ``wanted(game)`` holds at a decision."""
    session = LocalSession.hotseat_game(setup, seed=seed)
    bots = (make_bot("random", random.Random(seed)), make_bot("random", random.Random(-seed)))
    for _ in range(limit):
        asyncio.run(session.advance(lambda: None))
        game = session.game
        player = session.local_player()
        if player is None:
            break  # the game is over
        if wanted(game):
            return session
        session.submit(format_choice(game, bots[player].choose(game)))
    session.close()
    raise AssertionError(f"seed {seed}: no wanted decision")


def pending_kind(kind: DecisionKind) -> Callable[[Game], bool]:
    """``wanted`` for ``hotseat_at``: a decision of ``kind`` is pending."""
    return lambda game: isinstance(game.pending, Decision) and game.pending.kind is kind


def example_setup(a: str, b: str) -> GameSetup:
    """The standard map with two of examples/warbands/ (file names without .toml)."""
    catalog = load_catalog()
    first, second = (load_warband(EXAMPLES / f"{name}.toml", catalog) for name in (a, b))
    return GameSetup(load_map(), (first, second))


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Run an asyncio test (prompt-toolkit's loop) from a plain pytest function."""

    def wrapper() -> None:
        asyncio.run(test())

    wrapper.__name__ = test.__name__
    return wrapper
