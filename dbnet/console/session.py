"""What the console client talks to: a *session*, one game seen from this terminal.

The client draws ``session.game`` (a view it never changes), asks
``session.local_player()`` whether a person at this keyboard owes the pending
decision, plays that person's entry with ``session.submit(text)`` and follows
``session.log``. Everything else (dice, bots, later a network peer or a replay
file) happens in ``session.advance``, a coroutine the client runs in the
background: it returns when a local person must decide or the game is over,
and calls ``changed()`` after every step so the screen follows the game live.

``LocalSession`` is the local implementation: the engine, a bot or a second
person at the same keyboard (hotseat), and dice from a ``random.Random``. Bots
think in a worker thread on a copy of the game, so the screen never freezes
and never sees a half-applied step.
"""

from __future__ import annotations

import asyncio
import enum
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from dbnet.bots import Bot, make_bot
from dbnet.bots.match import roll_dice
from dbnet.engine import (
    ChanceKind,
    ChanceRequest,
    Choice,
    Decision,
    Game,
    GameSetup,
    Player,
    format_choice,
    format_dice,
    parse_choice,
)
from dbnet.errors import IllegalChoiceError
from dbnet.localplay import describe_roll, initiative_outcome

DEFAULT_BOT_DELAY = 0.35  # seconds between a bot's steps, so people can follow them


class LogKind(enum.Enum):
    CHOICE = "choice"  # a decision, in notation
    ROLL = "roll"  # dice, in notation, with what they did
    RESIGN = "resign"
    TURN = "turn"  # a conquest phase's result: words only
    NOTE = "note"  # anything else the session wants people to read


@dataclass(frozen=True, slots=True)
class LogLine:
    """One thing that happened. ``notation`` is the replay line (``spawn lockjaw e1``,
    ``roll 3 5``), empty for TURN and NOTE; ``words`` says it for people, dice as faces."""

    kind: LogKind
    player: Player | None
    notation: str
    words: str
    number: int = 0  # the position in the game's notation record, from 1; 0 for none


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

    def resign(self, player: Player) -> None:
        """``player`` (a local seat) resigns; the game is over."""
        ...

    async def advance(self, changed: Callable[[], None]) -> None:
        """Let everyone but the local people play until one of them must decide or the
        game is over, calling ``changed()`` after each step."""
        ...


@dataclass(frozen=True, slots=True)
class Person:
    """A seat played by someone at this keyboard."""

    label: str


Seat = Bot | Person


class LocalSession:
    """A game on this machine: two seats (people or bots) and local dice."""

    def __init__(
        self,
        setup: GameSetup,
        seats: tuple[Seat, Seat],
        dice: random.Random | None = None,
        *,
        bot_delay: float = DEFAULT_BOT_DELAY,
    ) -> None:
        self._game = Game(setup)
        self.seats = seats
        self.dice: random.Random = dice if dice is not None else secrets.SystemRandom()
        self.bot_delay = bot_delay
        self._log: list[LogLine] = []
        self._numbered = 0
        self._steps = 0  # bumped by every change, so a bot's late answer can be dropped
        self._introduce(setup)

    @classmethod
    def against_bot(
        cls,
        setup: GameSetup,
        *,
        bot: str = "greedy",
        side: Player = Player.A,
        seed: int | None = None,
        bot_delay: float = DEFAULT_BOT_DELAY,
    ) -> LocalSession:
        """A person in ``side``'s seat against the bot called ``bot``.

        With a ``seed`` the dice and the bot are repeatable, and the same seed gives
        the same dice and bot as ``dbnet play --plain --seed`` does.
        """
        dice, bot_rng = _randomness(seed)
        opponent = make_bot(bot, bot_rng)
        you = Person("you")
        seats: tuple[Seat, Seat] = (you, opponent) if side is Player.A else (opponent, you)
        return cls(setup, seats, dice, bot_delay=bot_delay)

    @classmethod
    def hotseat_game(cls, setup: GameSetup, *, seed: int | None = None) -> LocalSession:
        """Two people taking turns at one keyboard."""
        dice, _ = _randomness(seed)
        return cls(setup, (Person("player A"), Person("player B")), dice, bot_delay=0.0)

    # --- the Session interface -----------------------------------------------

    @property
    def game(self) -> Game:
        return self._game

    @property
    def log(self) -> Sequence[LogLine]:
        return self._log

    @property
    def hotseat(self) -> bool:
        return all(isinstance(seat, Person) for seat in self.seats)

    def seat_label(self, player: Player) -> str:
        seat = self.seats[player]
        return seat.label if isinstance(seat, Person) else f"{seat.name} bot"

    def is_local(self, player: Player) -> bool:
        return isinstance(self.seats[player], Person)

    def local_player(self) -> Player | None:
        pending = self._game.pending
        if isinstance(pending, Decision) and self.is_local(pending.player):
            return pending.player
        return None

    def submit(self, text: str) -> Choice:
        player = self.local_player()
        if player is None:
            raise IllegalChoiceError(f"no decision of yours is waiting; {text!r} not played")
        choice = parse_choice(self._game, text)
        self._apply(player, choice)
        return choice

    def resign(self, player: Player) -> None:
        self._game.resign(player)
        self._add(LogKind.RESIGN, player, "resign", f"{player.name} resigns.")

    async def advance(self, changed: Callable[[], None]) -> None:
        game = self._game
        while True:
            pending = game.pending
            if pending is None:
                return
            if isinstance(pending, ChanceRequest):
                self._roll(pending)
            else:
                seat = self.seats[pending.player]
                if isinstance(seat, Person):
                    return
                # The bot thinks on a copy in a worker thread; the screen keeps the real game.
                steps = self._steps
                choice = await asyncio.to_thread(seat.choose, game.copy())
                if steps != self._steps:  # someone resigned meanwhile: the answer is stale
                    continue
                self._apply(pending.player, choice)
            changed()
            if self.bot_delay > 0 and self.local_player() is None and not game.is_over:
                await asyncio.sleep(self.bot_delay)

    # --- the record -------------------------------------------------------------

    def _introduce(self, setup: GameSetup) -> None:
        seats = []
        for player in (Player.A, Player.B):
            portal = "e1" if player is Player.A else "a5"
            warband = setup.warbands[player].name
            seats.append(f"{player.name} {self.seat_label(player)} ({warband}, portal {portal})")
        to_win = setup.options.turns_to_win
        self._add(
            LogKind.NOTE,
            None,
            "",
            f"{seats[0]} against {seats[1]}. First to win {to_win} turns wins.",
        )
        if setup.map.reconstructed:
            self._add(
                LogKind.NOTE,
                None,
                "",
                f"Map {setup.map.name!r}: its key-cell values are a reconstruction.",
            )

    def notation(self) -> list[str]:
        """The game so far as notation lines (decisions, rolls, resignations), in order."""
        return [line.notation for line in self._log if line.notation]

    def _apply(self, player: Player, choice: Choice) -> None:
        game = self._game
        text = format_choice(game, choice)  # before applying: it reads the position
        turns_done = len(game.conquest_history)
        game.apply(choice)
        self._add(LogKind.CHOICE, player, text, f"{player.name} {text}")
        self._turn_results(turns_done)

    def _roll(self, request: ChanceRequest) -> None:
        game = self._game
        values = roll_dice(self.dice, request.count)
        words = describe_roll(game, request, values)
        turns_done = len(game.conquest_history)
        game.roll(values)
        if request.kind is ChanceKind.INITIATIVE:
            words += initiative_outcome(game)
        self._add(LogKind.ROLL, request.owner, format_dice(values), words)
        self._turn_results(turns_done)

    def _turn_results(self, turns_done: int) -> None:
        game = self._game
        history = game.conquest_history
        for turn, (a, b) in enumerate(history[turns_done:], start=turns_done + 1):
            self._add(LogKind.TURN, None, "", describe_turn(game, turn, a, b))

    def _add(self, kind: LogKind, player: Player | None, notation: str, words: str) -> None:
        self._steps += 1
        number = 0
        if notation:
            self._numbered += 1
            number = self._numbered
        self._log.append(LogLine(kind, player, notation, words, number))


def _randomness(seed: int | None) -> tuple[random.Random, random.Random]:
    """Dice and bot randomness; seeded the way ``dbnet play --seed`` seeds them."""
    if seed is None:
        return secrets.SystemRandom(), random.Random()
    return random.Random(f"dbnet-play-dice:{seed}"), random.Random(f"dbnet-play-bot:{seed}")


def describe_turn(game: Game, turn: int, a: int, b: int) -> str:
    """A conquest phase's result: both players' points, who won, the victory track."""
    outcome = "a tie (803.3)" if a == b else f"{'A' if a > b else 'B'} wins the turn"
    to_win = game.setup.options.turns_to_win
    wa, wb = game.turns_won
    return (
        f"End of turn {turn}: A {a}, B {b} conquest points, {outcome}. "
        f"Victory A {wa}/{to_win}, B {wb}/{to_win}."
    )
