"""Who sits in a game's seat, behind one interface: a person at a prompt, a bot, or the
remote peer across the network.

Every front end drives a game the same way (``match.driver``): when a decision is due,
it asks the deciding player's seat, ``seat.ask(view)``. A seat answers at once (a bot
thinking in place, a Limited build that needs no thought) or says None: the answer comes
later, from outside (a person typing at a prompt, a bot thinking in a worker thread, the
peer's record arriving over the network). ``kind`` says which of the three sits there,
for the front end that must fetch such an answer; ``name`` is what the story calls the
player, ``label`` what screens call them, and ``signed_name`` what the seat signs in its
OFFER or ACCEPT. This module does no I/O.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Final

from dbnet.bots import Bot, Progress, Stop, think
from dbnet.engine import Choice, Game, Player
from dbnet.match.building import Builders
from dbnet.match.keys import as_name, login_name


class SeatKind(enum.Enum):
    """Who sits in a seat."""

    PERSON = "person"
    """A person at this machine: the answer is typed at a prompt."""
    BOT = "bot"
    """A computer player in this process."""
    PEER = "peer"
    """The remote player: its decisions arrive as signed records over the network."""


class Seat(ABC):
    """One player's seat in a game: who sits there and how they answer a decision."""

    __slots__ = ()

    kind: ClassVar[SeatKind]

    @property
    @abstractmethod
    def name(self) -> str:
        """What the story calls the player (``A (you): ...``, ``B (greedy): ...``)."""

    @property
    def label(self) -> str:
        """What screens call whoever sits here (``'you'``, ``'greedy bot'``)."""
        return self.name

    @abstractmethod
    def signed_name(self, player: Player) -> str:
        """The name this seat signs in ``player``'s OFFER or ACCEPT."""

    @abstractmethod
    def ask(self, view: Game) -> Choice | None:
        """The decision due in ``view`` (the deciding player's view; the seat must not
        change it) made at once, or None when the answer comes later, from outside."""


@dataclass(frozen=True, slots=True)
class PersonSeat(Seat):
    """A person at this machine: the game stops and waits for their choice (``ask`` is
    always None; the front end reads it at a prompt).

    ``signs`` is the name signed in the OFFER or ACCEPT; by default, the login of the
    person at a bot game (named ``you``), else ``player-A`` or ``player-B`` (people taking
    turns at one keyboard)."""

    kind: ClassVar[SeatKind] = SeatKind.PERSON

    name: str = "you"
    signs: str | None = None

    def signed_name(self, player: Player) -> str:
        if self.signs is not None:
            return self.signs
        return login_name() if self.name == "you" else f"player-{player.name}"

    def ask(self, view: Game) -> Choice | None:
        return None


@dataclass(frozen=True, slots=True, eq=False)
class BotSeat(Seat):
    """A bot. In a Limited game's build phase it commits to the automatic build of its
    pool, and reveals it, at once (``builders``: a builder per player it plays). Other
    decisions it thinks over in place when ``in_place``; otherwise ``ask`` says None and
    the front end has it ``think`` elsewhere (a worker thread), so that the screen or the
    network does not wait."""

    kind: ClassVar[SeatKind] = SeatKind.BOT

    bot: Bot
    in_place: bool = True
    builders: Builders = field(default_factory=Builders)
    signs: str | None = None
    """The name signed; by default the bot's, as ``greedy-bot``."""

    @property
    def name(self) -> str:
        return self.bot.name

    @property
    def label(self) -> str:
        return f"{self.bot.name} bot"

    def signed_name(self, player: Player) -> str:
        return self.signs if self.signs is not None else as_name(f"{self.bot.name}-bot", "bot")

    def ask(self, view: Game) -> Choice | None:
        build = self.builders.automatic(view)
        if build is not None:
            return build
        return self.bot.choose(view) if self.in_place else None

    def think(
        self, view: Game, progress: Progress | None = None, stop: Stop | None = None
    ) -> Choice:
        """The bot's decision on ``view`` (its own copy), thought anywhere, for as long as
        its budget allows: ``progress`` hears how far a search is, ``stop`` ends it early."""
        return think(self.bot, view, progress, stop)


@dataclass(frozen=True, slots=True)
class PeerSeat(Seat):
    """The remote player: it never decides here (its records arrive over the network and
    the driver receives them). ``name`` is the name it said and signed."""

    kind: ClassVar[SeatKind] = SeatKind.PEER

    name: str = "peer"

    def signed_name(self, player: Player) -> str:
        return self.name

    def ask(self, view: Game) -> Choice | None:
        return None


HOTSEAT: Final = (PersonSeat("player A"), PersonSeat("player B"))
"""Two people taking turns at one keyboard."""


def facing(person: Player, other: Seat) -> tuple[Seat, Seat]:
    """A person at this keyboard in ``person``'s seat and ``other`` (a bot) in the other."""
    return (PersonSeat(), other) if person is Player.A else (other, PersonSeat())


def seats_with(other: Seat) -> Callable[[Player | None], tuple[Seat, Seat]]:
    """The seats of a resumed game given the person's seat: ``other`` (a bot) in the other
    one, or two people when the person's seat is None (a hotseat game)."""

    def seats(person: Player | None) -> tuple[Seat, Seat]:
        return HOTSEAT if person is None else facing(person, other)

    return seats
