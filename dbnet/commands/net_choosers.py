"""Who decides at this end of ``dbnet host``, ``join`` or ``resume`` in the line
interface: the ``--bot`` in a worker thread, or the person at the prompt (the position,
the decision, both clocks in a timed game, ``say TEXT`` to the opponent, a Limited
game's build), and the rematch question when a game ends. The full screen has its own
(``dbnet.console.network``)."""

from __future__ import annotations

import textwrap
import threading
from collections.abc import Awaitable, Callable

import trio

from dbnet.commands.keyboard import Keyboard, chat_text
from dbnet.commands.rematch_terms import TERMS_HINT, RematchTerms
from dbnet.engine import Game, Player, format_choice, read_choice
from dbnet.engine.choices import DecisionKind
from dbnet.engine.limited import auto_build
from dbnet.errors import DbnetError
from dbnet.match.building import (
    Builder,
    build_decision,
    pick_from_pool,
    pool_of,
)
from dbnet.match.decision_help import choice_lines, explain_pending, pending_help, pool_lines
from dbnet.match.render import WIDTH, render_position
from dbnet.match.seats import BotSeat
from dbnet.match.story import minis_words
from dbnet.net.chat import ChatRoom
from dbnet.net.clocks import SessionClocks, now_ms
from dbnet.net.rematch import Ask
from dbnet.net.session import GameSession
from dbnet.net.session_values import RESIGN, Chooser
from dbnet.protocol.clock import format_clock


def bot_in_a_thread(seat: BotSeat) -> Chooser:
    """The bot of ``seat`` deciding in a worker thread; cancelled (the game ends, the
    connection fails, Ctrl-C), it stops searching at once and its choice is dropped. (In a
    Limited game the seat itself commits to the automatic build and reveals it.)"""

    async def choose(view: Game) -> str:
        stopped = threading.Event()

        def decide() -> str:
            return format_choice(view, seat.think(view, stop=stopped.is_set))

        try:
            return await trio.to_thread.run_sync(decide, abandon_on_cancel=True)
        finally:
            stopped.set()

    return choose


_ABANDONED_READ = threading.Event()
"""Set when a read of the person's line was abandoned (the game ended, by a claim say,
while they were at the prompt): its thread still holds stdin's lock."""


async def _read(read_line: Callable[[str], str], prompt: str) -> str:
    """The person's next line, read in a worker thread. abandon_on_cancel: a game that
    ends (or fails) while the person is at the prompt must not wait for them to press
    Enter; the thread is left reading (see ``_finish``)."""
    try:
        return await trio.to_thread.run_sync(read_line, prompt, abandon_on_cancel=True)
    except trio.Cancelled:
        _ABANDONED_READ.set()
        raise


Read = Callable[[str], Awaitable[str]]
"""The person's next line, after the prompt given."""


def line_reader(read_line: Callable[[str], str] = input, chat: ChatRoom | None = None) -> Read:
    """The person's lines: with ``chat``, through one keyboard thread (``say TEXT`` goes
    to the opponent at once, ``dbnet.commands.keyboard``), else one worker thread a line."""
    keyboard = None if chat is None else Keyboard(read_line, chat, _ABANDONED_READ)

    async def read(prompt: str) -> str:
        if keyboard is None:
            return await _read(read_line, prompt)
        return await keyboard.line(prompt)

    return read


def line_chooser(
    read_line: Callable[[str], str] = input,
    build_seconds: float = 600.0,
    builder: Builder | None = None,
    clocks: Callable[[], list[str]] = list,
    chat: ChatRoom | None = None,
    read: Read | None = None,
) -> Chooser:
    """A person at this terminal: the position, the decision, both clocks in a timed
    game (``clocks``: the lines to show), one line of notation (or ``say TEXT`` to the
    opponent, through ``chat``); in a Limited game's build phase, a warband picked from
    the pool within ``build_seconds``. ``read`` (``line_reader``) is given when another
    question (a rematch) reads the same keyboard; else it is made from ``read_line`` and
    ``chat``."""
    builder = Builder() if builder is None else builder
    read = line_reader(read_line, chat) if read is None else read

    async def choose(view: Game) -> str:
        if build_decision(view) is not None:
            return await _build(view, builder, read, build_seconds)
        print(render_position(view), flush=True)
        for line in explain_pending(view) + clocks():
            print(line, flush=True)
        while True:
            line = await read("> ")
            text = line.strip()
            if text in ("help", "choices"):
                try:  # what is shown never changes the game: an error is one line
                    told = pending_help(view) if text == "help" else []
                    for paragraph in told:
                        print(textwrap.fill(paragraph, WIDTH, break_on_hyphens=False))
                    for line in choice_lines(view):
                        print(line, flush=True)
                except Exception as exc:
                    print(f"could not show the {text} ({type(exc).__name__}: {exc})", flush=True)
                if chat is not None and text == "help":
                    print("'say TEXT' sends the opponent a line, at any time.", flush=True)
                continue
            if text == "board":
                print(render_position(view), flush=True)
                continue
            if text == "resign":
                return RESIGN
            said = chat_text(text)
            if chat is not None and said is not None:
                chat.say(said)
                continue
            try:
                return format_choice(view, read_choice(view, text))
            except DbnetError as exc:
                print(f"illegal: {exc}", flush=True)

    return choose


LOW_CLOCK_MS = 60_000
"""A clock under this is warned of at the prompt (once a player, each session)."""


class ClockLines:
    """The clock lines of the prompt: both clocks, and a warning the first time one is
    under a minute."""

    def __init__(self, session: Callable[[], GameSession]) -> None:
        self.session = session  # the game being played (a rematch brings the next)
        self.clocks: SessionClocks | None = None
        self.warned: set[Player] = set()

    def __call__(self) -> list[str]:
        session = self.session()
        if session.clocks is not self.clocks:  # a new game: its own warnings
            self.clocks, self.warned = session.clocks, set()
        clocks = session.clocks
        line, view = clocks.line(), clocks.view
        if line is None or view is None:
            return []
        lines = [line]
        now = now_ms()
        me = None if session.game is None else session.game.me
        for player in (Player.A, Player.B):
            left = view.left(player, now)
            if left < LOW_CLOCK_MS and player not in self.warned:
                self.warned.add(player)
                whose = "your clock" if player is me else "the opponent's clock"
                lines.append(
                    f"warning: {whose} ({player.name}) is under a minute: {format_clock(left)} left"
                )
        return lines


def line_rematch(read: Read, terms: RematchTerms | None = None) -> Ask:
    """A person at this terminal asked, when a game ends, whether to play another with the
    same opponent: ``rematch`` for yes, anything else (an empty line, the end of input) no.
    ``read`` is the chooser's (``line_reader``): one thread reads the keyboard. The host
    (``terms``) may add new terms (``rematch --turns-to-win 4``): bad ones are said in
    one line and asked again."""

    async def ask(offered: bool) -> bool:
        if offered:
            print("the opponent offers a rematch: type rematch to play another game, or press "
                  "Enter to leave", flush=True)  # fmt: skip
        else:
            print("the game is over: type rematch to offer the opponent another game (over this "
                  "connection), or press Enter to leave", flush=True)  # fmt: skip
        if terms is not None:
            print(f"(the host may change the terms: rematch {TERMS_HINT})", flush=True)
        while True:
            try:
                words = (await read("> ")).split()
            except EOFError:
                return False
            if not words or words[0].lower() != "rematch":
                return False
            if len(words) == 1:
                return True
            if terms is None:
                print("rematch: only the host sets the terms: type rematch, or press Enter "
                      "to leave", flush=True)  # fmt: skip
                continue
            wrong = terms.change(words[1:])
            if wrong is None:
                return True
            print(wrong, flush=True)

    return ask


async def _build(
    view: Game, builder: Builder, read: Callable[[str], Awaitable[str]], seconds: float
) -> str:
    """The person's commitment (a warband picked from the pool with 'pick', 'auto',
    'pool', 'done', until they commit or ``seconds`` pass: then the last warband saved,
    else the automatic build) or their reveal (at once)."""
    pending = build_decision(view)
    assert pending is not None
    if pending.kind is DecisionKind.REVEAL:
        return format_choice(view, builder.choice(view))
    me = pending.player
    pool = pool_of(view, me)
    for line in pool_lines(view, me):
        print(line, flush=True)
    print(
        f"Build your warband within {seconds / 60:g} minutes: 'pick NAME ...' saves one, "
        "'auto' shows the automatic build, 'pool' lists your pool, 'done' commits the "
        "saved warband (else the automatic build).",
        flush=True,
    )
    with trio.move_on_after(seconds) as scope:
        while True:
            line = await read("build> ")
            word, _, rest = line.strip().partition(" ")
            command = word.lower()
            if command == "done":
                break
            if command == "pool":
                for text in pool_lines(view, me):
                    print(text, flush=True)
            elif command == "auto":
                print(f"Automatic build: {minis_words(auto_build(pool))}", flush=True)
            elif command == "pick":
                try:
                    builder.save(view, me, pick_from_pool(pool, rest.split()))
                except DbnetError as exc:
                    print(f"not saved: {exc}", flush=True)
                    continue
                saved = builder.saved or ()
                print(f"Saved ({len(saved)}): {minis_words(saved)}", flush=True)
            else:
                print("Type 'pick NAME ...', 'auto', 'pool' or 'done'.", flush=True)
    if scope.cancelled_caught:
        print("build time is up: committing the warband saved, else the automatic build")
    return format_choice(view, builder.choice(view))
