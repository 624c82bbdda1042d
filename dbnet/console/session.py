"""What the console client talks to: a *session*, one game seen from this terminal.

The client draws ``session.game`` (a view it never changes), asks
``session.local_player()`` whether a person at this keyboard owes the pending
decision, plays that person's entry with ``session.submit(text)`` and follows
``session.log``. Everything else (dice, bots, later a network peer) happens in
``session.advance``, a coroutine the client runs in the background: it
returns when a local person must decide or nothing more will happen, and
calls ``changed()`` after every step so the screen follows the game live.
``session.close()`` ends it: the replay file is complete as far as the game
went, and ``replay_path`` says where it is.

``LocalSession`` is the local implementation: a ``LocalGame`` (two in-process
peers writing the signed log, dice from their hash chains) with a bot or a
second person at the same keyboard (hotseat), every entry appended to a
replay file as it is written, exactly as ``dbnet play --plain`` does. Bots
think in a worker thread on a copy of their view, and every entry is written
on the client's thread, so the screen never freezes and never sees a
half-written step.
"""

from __future__ import annotations

import asyncio
import enum
import shlex
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from dbnet.bots import Bot, Progress, Stop, make_bot
from dbnet.engine import Choice, Decision, Game, GameSetup, Player, format_choice, read_choice
from dbnet.engine.choices import DecisionKind
from dbnet.errors import IllegalChoiceError
from dbnet.match.keys import bot_random, local_keys
from dbnet.match.local import LocalGame
from dbnet.match.seats import HOTSEAT, BotSeat, Seat, SeatKind, facing, seats_with
from dbnet.match.story import Event, EventKind
from dbnet.replay.file import ReplayWriter
from dbnet.replay.saved import SavedGame, resume_play_command, resume_saved, start_saved
from dbnet.replay.terms import LocalTerms
from dbnet.text import counted, printable

DEFAULT_BOT_DELAY = 0.35  # seconds between a bot's steps, so people can follow them


class LogKind(enum.Enum):
    CHOICE = "choice"  # a decision, in notation
    ROLL = "roll"  # dice, in notation, with what they did
    RESIGN = "resign"
    TURN = "turn"  # a conquest phase's result: words only
    NOTE = "note"  # anything else the session wants people to read
    SEAL = "seal"  # an entry that closes the log (FINAL, COSIGN, CLAIM): words only
    COPY = "copy"  # a line to copy whole (an invite): not indented, cut at the width only


@dataclass(frozen=True, slots=True)
class LogLine:
    """One thing that happened. ``notation`` is the replay line (``spawn lockjaw e1``,
    ``roll 3 5``), empty for TURN, NOTE and SEAL; ``words`` says it for people, dice as
    faces. ``number`` counts the numbered lines from 1 (0: not numbered)."""

    kind: LogKind
    player: Player | None
    notation: str
    words: str
    number: int = 0


def tell(log: list[LogLine], events: list[Event], numbered: int) -> int:
    """Append the log lines of ``events`` to ``log``, each but a turn's result numbered
    after the ``numbered`` told before; the count told now."""
    for event in events:
        number = 0
        if event.kind is not EventKind.TURN:
            numbered += 1
            number = numbered
        log.append(log_line(event, number))
    return numbered


def log_line(event: Event, number: int) -> LogLine:
    """The log line of one of the story's events (``dbnet.match.story``; TURN events get
    no number)."""
    kind = {
        EventKind.CHOICE: LogKind.CHOICE,
        EventKind.ROLL: LogKind.ROLL,
        EventKind.RESIGN: LogKind.RESIGN,
        EventKind.TURN: LogKind.TURN,
    }[event.kind]
    return LogLine(kind, event.player, event.notation, event.words, number)


class Session(Protocol):
    """One game as this terminal sees it."""

    @property
    def game(self) -> Game:
        """The position to draw. Read it, never change it."""
        ...

    @property
    def log(self) -> Sequence[LogLine]:
        """Everything that happened so far, oldest first."""
        ...

    @property
    def hotseat(self) -> bool:
        """True when both seats are people at this keyboard."""
        ...

    @property
    def spectating(self) -> bool:
        """True when nobody here plays: a spectator's screen (a host still waiting for
        its opponent plays, though no seat is its own yet)."""
        ...

    @property
    def is_closed(self) -> bool:
        """Nothing more will happen: the game's log is closed (or the session is)."""
        ...

    @property
    def replay_path(self) -> Path | None:
        """Where the replay is being saved, if it is."""
        ...

    @property
    def connection(self) -> str | None:
        """A network game's connection state ("connected to bob", "reconnecting..."); None
        for a game on this machine."""
        ...

    @property
    def thinking(self) -> float | None:
        """While a bot of this session thinks: the share of its budget spent (0 to 1);
        None otherwise."""
        ...

    def seat_label(self, player: Player) -> str:
        """Who sits in ``player``'s seat: ``'you'``, ``'greedy bot'``, ``'player B'``."""
        ...

    def is_local(self, player: Player) -> bool:
        """Whether a person at this keyboard plays ``player``."""
        ...

    def local_player(self) -> Player | None:
        """The local person who owes the pending decision, if one does."""
        ...

    def submit(self, text: str) -> Choice:
        """Play ``text`` (notation) for ``local_player()``; raises DbnetError (with the reason)
        and changes nothing if it is malformed or illegal now."""
        ...

    def resign(self, player: Player) -> bool:
        """``player`` (a local seat) resigns: at once (True) when their entry is due, else
        as soon as it is (False; ``advance`` writes it)."""
        ...

    async def advance(self, changed: Callable[[], None]) -> None:
        """Let everyone but the local people play until one of them must decide or
        nothing more will happen, calling ``changed()`` after each step."""
        ...

    def close(self) -> None:
        """Stop: write what needs nobody's decision (FINAL, COSIGN) if the game is over,
        then close the replay file. Safe to call twice."""
        ...

    async def aclose(self) -> None:
        """``close``, on the screen's event loop before it stops: a network game runs on
        that loop (trio in guest mode) and must wind down there."""
        ...

    @property
    def resumable(self) -> bool:
        """Whether leaving now keeps the game to go on with later (``dbnet resume FILE``
        for a network game, ``dbnet play --resume FILE`` for a local one)."""
        ...

    def farewell(self) -> list[str]:
        """What to print once the screen is gone: where the replay is, and how far it goes."""
        ...


class LocalSession:
    """A game on this machine through the signed log: two seats (people or bots)."""

    def __init__(
        self,
        local: LocalGame,
        *,
        replay: ReplayWriter | None = None,
        bot_delay: float = DEFAULT_BOT_DELAY,
        seed: int | None = None,
    ) -> None:
        if any(isinstance(seat, BotSeat) and seat.in_place for seat in local.seats):
            raise ValueError("a bot must think in a worker thread here: BotSeat(in_place=False)")
        self.local = local
        self.replay = replay
        self.seed = seed
        """The ``--seed`` the game was made with (its resume command needs it)."""
        self.bot_delay = bot_delay
        self._log: list[LogLine] = []
        self._numbered = 0
        self._told = 0  # events of local.log already in self._log
        self._resigning: Player | None = None
        self._sealed = False
        self._closed = False
        self._thinking: float | None = None
        self._stop = threading.Event()  # set: the bot thinking now stops at once
        self._introduce()
        self._sync()

    @classmethod
    def against_bot(
        cls,
        setup: GameSetup,
        *,
        bot: str = "greedy",
        think: float | None = None,
        playouts: int | None = None,
        side: Player = Player.A,
        seed: int | None = None,
        replay: Path | None = None,
        bot_delay: float = DEFAULT_BOT_DELAY,
        build_minutes: float = 10.0,
    ) -> LocalSession:
        """A person in ``side``'s seat against the bot called ``bot``; these terms are kept
        beside the replay (``replay.terms``), so the game resumes with them.

        As in ``dbnet play --plain``: the person signs with their identity key (the bot
        with a key derived from it for the game); with a ``seed``, both keys, the dice
        chains and the bot's choices come from the seed instead, the same seed giving the
        same game in both interfaces.

        Raises:
            ReplayError: the replay file exists already or cannot be written.
        """
        keys, bot_rng = local_keys(seed, side)
        seats = facing(side, _bot_seat(make_bot(bot, bot_rng, seconds=think, playouts=playouts)))
        terms = LocalTerms(side, bot, think, playouts, seed, build_minutes)
        saved = start_saved(setup, seats, keys, replay, terms)
        return cls.saved(saved, bot_delay=bot_delay, seed=seed)

    @classmethod
    def hotseat_game(
        cls, setup: GameSetup, *, seed: int | None = None, replay: Path | None = None
    ) -> LocalSession:
        """Two people taking turns at one keyboard. Both seats sign with keys derived for
        the game (nobody's identity key: two people share the keyboard)."""
        keys, _ = local_keys(seed, None)
        terms = LocalTerms(None, None, seed=seed)
        saved = start_saved(setup, HOTSEAT, keys, replay, terms)
        return cls.saved(saved, bot_delay=0.0, seed=seed)

    @classmethod
    def resume(
        cls,
        path: Path,
        *,
        bot: str = "greedy",
        think: float | None = None,
        playouts: int | None = None,
        seed: int | None = None,
        side: Player | None = Player.A,
        bot_delay: float = DEFAULT_BOT_DELAY,
    ) -> LocalSession:
        """The local game saved at ``path``, resumed (``replay.saved.resume_saved``): the
        person's seat is found from the keys (given by ``side`` for a ``seed`` game, None
        for hotseat), the other seat is the bot called ``bot``.

        Raises:
            ReplayError: the file cannot be resumed.
        """
        bot_seat = _bot_seat(make_bot(bot, bot_random(seed), seconds=think, playouts=playouts))
        seats = seats_with(bot_seat)
        saved = resume_saved(path, seats, seed=seed, seat=side)
        return cls.saved(saved, bot_delay=0.0 if saved.local.hotseat else bot_delay, seed=seed)

    @classmethod
    def saved(
        cls, saved: SavedGame, *, bot_delay: float = DEFAULT_BOT_DELAY, seed: int | None = None
    ) -> LocalSession:
        """The session of a game saved to its replay file as it is played."""
        return cls(saved.local, replay=saved.writer, bot_delay=bot_delay, seed=seed)

    # --- the Session interface -----------------------------------------------

    @property
    def game(self) -> Game:
        return self.local.game

    @property
    def log(self) -> Sequence[LogLine]:
        return self._log

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return self.local.seats

    @property
    def hotseat(self) -> bool:
        return self.local.hotseat

    @property
    def spectating(self) -> bool:
        return False

    @property
    def is_closed(self) -> bool:
        return self._closed or self.local.is_closed

    @property
    def replay_path(self) -> Path | None:
        return None if self.replay is None else self.replay.path

    @property
    def connection(self) -> str | None:
        return None

    @property
    def thinking(self) -> float | None:
        return self._thinking

    def seat_label(self, player: Player) -> str:
        return self.seats[player].label

    def is_local(self, player: Player) -> bool:
        return self.seats[player].kind is SeatKind.PERSON

    def local_player(self) -> Player | None:
        if self._closed or self._resigning is not None:
            return None
        return self.local.person_to_decide()

    def submit(self, text: str) -> Choice:
        player = self.local_player()
        if player is None:
            raise IllegalChoiceError(f"no decision of yours is waiting; {text!r} not played")
        choice = read_choice(self.game, text)
        self.local.play(format_choice(self.game, choice))
        self._sync()
        return choice

    def resign(self, player: Player) -> bool:
        if self._closed or self.game.is_over:
            raise IllegalChoiceError("the game is already over")
        if not self.is_local(player):
            raise IllegalChoiceError(f"{player.name} is not played at this keyboard")
        if self.local.match.next_author is not player:
            self._resigning = player  # the log lets only the player whose entry is due write
            return False
        self.local.resign(player)
        self._resigning = None
        self._sync()
        return True

    async def advance(self, changed: Callable[[], None]) -> None:
        local = self.local
        while not self._closed:
            if self._resigning is not None and self.game.is_over:
                self._resigning = None  # the game ended first
            if self._resigning is not None and local.match.next_author is self._resigning:
                self.resign(self._resigning)
                changed()
                continue
            if local.waits_for_person() and self._reveal():
                changed()  # a person's reveal needs no decision: their builder writes it
                continue
            if local.is_closed or local.waits_for_person():
                if self._sync():
                    changed()
                return
            due = local.seat_to_decide()
            if due is None:
                local.step()
            else:
                # The bot thinks on its own copy in a worker thread; the entry is written here.
                seat, view = due
                choice = seat.ask(view)  # Limited: the automatic build, at once
                if choice is not None:
                    decision = format_choice(view, choice)
                else:
                    assert isinstance(seat, BotSeat), "only bots sit here besides people"
                    decision = await self._think(seat, view, changed)
                if self._closed:
                    return
                local.step(decision)
            if not self._sync():
                continue
            changed()
            if self.bot_delay > 0 and self.local_player() is None and not self.game.is_over:
                await asyncio.sleep(self.bot_delay)

    def _reveal(self) -> bool:
        """Play the local person's reveal of a Limited game, if it is due (their builder
        holds the warband they committed to); whether it was."""
        player = self.local.person_to_decide()
        pending = self.game.pending
        if player is None or pending != Decision(player, DecisionKind.REVEAL):
            return False
        game = self.game
        self.local.play(format_choice(game, self.local.builders[player].choice(game)))
        self._sync()
        return True

    async def _think(self, bot: BotSeat, view: Game, changed: Callable[[], None]) -> str:
        """The bot's decision, thought in a worker thread on its own copy of the game while
        ``thinking`` follows its progress. Cancelled (the screen closes) or closed, the
        search is told to stop at once and its choice is dropped."""
        loop = asyncio.get_running_loop()
        stop = self._stop = threading.Event()
        shown = [-1]  # the progress last shown, in steps of 5%

        def progress(share: float) -> None:  # in the worker thread
            step = int(share * 20)
            if step != shown[0]:
                shown[0] = step
                loop.call_soon_threadsafe(self._progress, step * 5 / 100, changed)

        self._thinking = 0.0
        try:
            return await asyncio.to_thread(_think, bot, view, progress, stop.is_set)
        finally:
            stop.set()
            self._thinking = None

    def _progress(self, share: float, changed: Callable[[], None]) -> None:
        if self._thinking is not None and not self._stop.is_set():
            self._thinking = share
            changed()

    def close(self) -> None:
        self._stop.set()
        if self._closed:
            return
        self._closed = True
        try:
            if self.game.is_over and not self.local.is_closed:
                self.local.advance()  # FINAL and COSIGN: no decisions left, nothing to wait for
                self._sync()
        finally:
            if self.replay is not None:
                self.replay.close()

    async def aclose(self) -> None:
        self.close()

    @property
    def resumable(self) -> bool:
        return self.replay is not None and not self.local.is_closed

    def farewell(self) -> list[str]:
        path = self.replay_path
        if path is None:
            return []
        if self.local.is_closed:
            return [
                f"Replay saved (complete): {path}",
                f"Check it: dbnet verify {shlex.quote(str(path))}",
            ]
        return [
            f"Replay saved (unfinished): {path}",
            f"Go on with it: {resume_play_command(path, self.seed)}",
        ]

    # --- the record -------------------------------------------------------------

    def notation(self) -> list[str]:
        """The game so far as notation lines (decisions, rolls, resignations), in order."""
        return [line.notation for line in self._log if line.notation]

    def _introduce(self) -> None:
        setup = self.local.narrator.game.setup
        seats = []
        for player in (Player.A, Player.B):
            portal = "e1" if player is Player.A else "a5"
            warband = printable(setup.warbands[player].name)
            seats.append(f"{player.name} {self.seat_label(player)} ({warband}, portal {portal})")
        to_win = setup.options.turns_to_win
        self._note(f"{seats[0]} against {seats[1]}. First to win {counted(to_win, 'turn')} wins.")
        if setup.map.reconstructed:
            self._note(f"Map {setup.map.name!r}: its key-cell values are a reconstruction.")
        if self.replay is not None:
            self._note(f"Replay: {self.replay.path}")

    def _sync(self) -> bool:
        """Add the game's new events to the log; whether there were any."""
        events = self.local.log
        new = events[self._told :]
        self._told = len(events)
        self._numbered = tell(self._log, new, self._numbered)
        if self.local.is_closed and not self._sealed:
            self._sealed = True
            if self.replay is not None:
                self._note(f"Replay saved, complete (both signed the result): {self.replay.path}")
            return True
        return bool(new)

    def note(self, words: str) -> None:
        """Add a line of words to the log."""
        self._note(words)

    def _note(self, words: str) -> None:
        self._log.append(LogLine(LogKind.NOTE, None, "", words))


def _think(bot: BotSeat, view: Game, progress: Progress, stop: Stop) -> str:
    """The bot's decision on ``view`` (its own copy), in notation."""
    pending = view.pending
    assert isinstance(pending, Decision)
    return format_choice(view, bot.think(view, progress, stop))


def _bot_seat(bot: Bot) -> BotSeat:
    """A bot thinking in a worker thread (``LocalSession.advance``), never in place."""
    return BotSeat(bot, in_place=False)
