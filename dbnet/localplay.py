"""Drive a game on one machine: two seats (a person at this terminal, or a bot) and dice.

``LocalGame.advance`` rolls dice and lets bots decide until a person owes a
decision or the game is over; ``LocalGame.play`` takes that person's choice
in notation. Every decision and roll is logged as an ``Event`` whose
``notation`` is the line a scenario or replay would hold (``spawn lockjaw e1``,
``roll 3 5``) and whose ``words`` tell people what happened, attack dice shown
as faces (``[2 3 - B]``). This module does no terminal I/O.

Dice come from ``secrets.SystemRandom()`` (the operating system's CSPRNG)
unless a ``random.Random`` is given, as ``--seed`` does for reproducible games.
"""

from __future__ import annotations

import enum
import random
import secrets
from dataclasses import dataclass
from pathlib import Path

from dbnet.bots import Bot
from dbnet.bots.match import roll_dice
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import (
    NO_ABILITIES,
    AbilityRules,
    ChanceKind,
    ChanceRequest,
    Choice,
    Decision,
    Game,
    GameSetup,
    Player,
    Warband,
    format_choice,
    format_dice,
    parse_choice,
)
from dbnet.engine.board import cell_name
from dbnet.engine.notation import format_attack_dice
from dbnet.errors import IllegalChoiceError

ATTACK_DAMAGE = (1, 2, 3, 0, 0, 0)  # 302: damage of each attack die face


def load_setup(warband: Path | None, opponent: Path | None, side: Player) -> GameSetup:
    """The standard map with ``warband`` in ``side``'s seat and ``opponent`` in the other.

    Without files, the first shipped warband goes to ``side`` and the second to the other.
    """
    catalog = load_catalog()
    default_a, default_b = default_warbands(catalog)
    mine: Warband = load_warband(warband, catalog) if warband else default_a
    theirs: Warband = load_warband(opponent, catalog) if opponent else default_b
    pair = (mine, theirs) if side is Player.A else (theirs, mine)
    return GameSetup(load_map(), pair)


@dataclass(frozen=True, slots=True)
class Human:
    """A seat played by a person: the driver stops and waits for their choice."""

    name: str = "you"


Seat = Bot | Human


class EventKind(enum.Enum):
    CHOICE = "choice"
    ROLL = "roll"
    RESIGN = "resign"
    TURN = "turn"  # a conquest phase's result; not a notation line


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``notation`` is empty for TURN events; ``faces`` shows
    attack or deathblow dice as faces (``[2 3 - B]``), empty otherwise."""

    kind: EventKind
    player: Player | None
    notation: str
    words: str
    faces: str = ""

    def __str__(self) -> str:
        return self.words


def seat_name(seat: Seat) -> str:
    return seat.name


class LocalGame:
    """A game between two seats on this machine, with its log."""

    def __init__(
        self,
        setup: GameSetup,
        seats: tuple[Seat, Seat],
        dice: random.Random | None = None,
        *,
        rules: AbilityRules = NO_ABILITIES,
    ) -> None:
        self.game = Game(setup, rules)
        self.seats = seats
        self.dice: random.Random = dice if dice is not None else secrets.SystemRandom()
        self.log: list[Event] = []

    def human_to_decide(self) -> Player | None:
        """The person's seat that owes the pending decision, if a person owes it."""
        pending = self.game.pending
        if isinstance(pending, Decision) and isinstance(self.seats[pending.player], Human):
            return pending.player
        return None

    def advance(self) -> list[Event]:
        """Roll dice and let bots decide until a person must decide or the game ends."""
        events: list[Event] = []
        game = self.game
        while True:
            pending = game.pending
            if pending is None:
                return events
            if isinstance(pending, ChanceRequest):
                events += self._roll(pending)
                continue
            seat = self.seats[pending.player]
            if isinstance(seat, Human):
                return events
            events += self._apply(pending.player, seat.choose(game))

    def play(self, text: str) -> list[Event]:
        """Play a person's choice written in notation; raises DbnetError and changes nothing
        if it is malformed or illegal."""
        player = self.human_to_decide()
        if player is None:
            raise IllegalChoiceError(f"no decision is waiting for a person; {text!r} not played")
        return self._apply(player, parse_choice(self.game, text))

    def resign(self, player: Player) -> Event:
        self.game.resign(player)
        event = Event(EventKind.RESIGN, player, "resign", f"{player.name} resigns.")
        self.log.append(event)
        return event

    def notation(self) -> list[str]:
        """The game so far as notation lines (decisions and rolls), in order."""
        return [e.notation for e in self.log if e.kind is not EventKind.TURN]

    def transcript(self) -> list[str]:
        """The log for people: numbered notation lines, attack dice also shown as faces."""
        lines = []
        n = 0
        for e in self.log:
            if e.kind is EventKind.TURN:
                lines.append(f"      {e.words}")
                continue
            n += 1
            who = e.player.name if e.player is not None else " "
            faces = f"  {e.faces}" if e.faces else ""
            lines.append(f"{n:4}. {who} {e.notation}{faces}")
        return lines

    # --- internals ----------------------------------------------------------------

    def _apply(self, player: Player, choice: Choice) -> list[Event]:
        game = self.game
        text = format_choice(game, choice)
        turns_done = len(game.conquest_history)
        game.apply(choice)
        who = f"{player.name} ({seat_name(self.seats[player])})"
        events = [Event(EventKind.CHOICE, player, text, f"{who}: {text}")]
        return self._record(events, turns_done)

    def _roll(self, request: ChanceRequest) -> list[Event]:
        game = self.game
        values = roll_dice(self.dice, request.count)
        words = _describe_roll(game, request, values)
        turns_done = len(game.conquest_history)
        game.roll(values)
        if request.kind is ChanceKind.INITIATIVE:
            words += _initiative_outcome(game)
        faces = "" if request.kind is ChanceKind.INITIATIVE else format_attack_dice(values)
        events = [Event(EventKind.ROLL, None, format_dice(values), words, faces)]
        return self._record(events, turns_done)

    def _record(self, events: list[Event], turns_done: int) -> list[Event]:
        game = self.game
        for turn, (a, b) in enumerate(game.conquest_history[turns_done:], start=turns_done + 1):
            events.append(Event(EventKind.TURN, None, "", _turn_result(game, turn, a, b)))
        self.log += events
        return events


def _describe_roll(game: Game, request: ChanceRequest, values: list[int]) -> str:
    if request.kind is ChanceKind.INITIATIVE:
        rolls = ", ".join(f"{p.name} {v}" for p, v in zip(request.players, values, strict=True))
        return f"Initiative: {rolls}."
    damage = sum(ATTACK_DAMAGE[v - 1] for v in values)
    owner = request.owner.name if request.owner is not None else "?"
    cell = cell_name(game.combat.cell) if game.combat is not None else "?"
    what = "attack" if request.kind is ChanceKind.ATTACK else "deathblow"
    return (
        f"{owner} rolls {len(values)} {what} dice in {cell}: {format_attack_dice(values)} "
        f"= {damage} damage."
    )


def _initiative_outcome(game: Game) -> str:
    pending = game.pending
    if isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.INITIATIVE:
        return " Reroll (700.1, 800)."
    if game.is_over:
        return ""
    skip = " A 1 was rolled: both spawn phases are skipped (800.1)." if game.skip_spawn else ""
    return f" {game.first.name} goes first.{skip}"


def _turn_result(game: Game, turn: int, a: int, b: int) -> str:
    if a == b:
        outcome = "a tie, nobody wins the turn (803.3)"
    else:
        outcome = f"{'A' if a > b else 'B'} wins the turn"
    to_win = game.setup.options.turns_to_win
    wa, wb = game.turns_won
    return (
        f"End of turn {turn}: A {a}, B {b} conquest points; {outcome}. "
        f"Victory: A {wa}/{to_win}, B {wb}/{to_win}."
    )
