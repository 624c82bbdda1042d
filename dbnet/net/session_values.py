"""The values a network game session works with, and the helpers its phases share
(``dbnet.net.session``, ``dbnet.net.greeting``, ``dbnet.net.playing``): what a chooser
returns to resign, the session's errors and outcomes, a new game's terms (``NewGame``),
the player at this end (``LocalPlayer``), the resume command and the advice for a full
disk, a seat's narrator, and the nursery the session's tasks run in."""

from __future__ import annotations

import enum
import os
import shlex
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

import trio

from dbnet.engine import Game, MapDef, Options, Player, Warband
from dbnet.errors import DbnetError
from dbnet.match.building import Builder
from dbnet.match.seats import PersonSeat, Seat
from dbnet.match.story import Event, Narrator
from dbnet.net.chat import ChatRoom
from dbnet.net.played import PlayedGames
from dbnet.net.rematch import Ask
from dbnet.protocol.clock import ClockSetting
from dbnet.protocol.identity import Identity, KnownPeers
from dbnet.protocol.log import GameLog
from dbnet.protocol.remote import RemoteGame
from dbnet.replay.errors import DiskFullError

if TYPE_CHECKING:
    from dbnet.net.session import GameSession

__all__ = [
    "RESIGN",
    "RESUME_NEEDS_INVITE",
    "SEAT_NEEDS_INVITE",
    "Chooser",
    "GameSessionError",
    "LocalPlayer",
    "NewGame",
    "Outcome",
    "PeerLeftError",
    "disk_full_advice",
    "restore_game",
    "resume_command",
    "seat_narrator",
    "withheld_result",
]

RESIGN: Final = "resign"
"""What a chooser returns to resign instead of deciding."""

SEAT_NEEDS_INVITE: Final = (
    "this host seats only the holder of its invite: use dbnet join INVITE (the line the "
    "host printed)"
)
"""What a joiner without the invite's proof is told by a host that made an invite."""
RESUME_NEEDS_INVITE: Final = (
    "this host seats only the holder of its invite until the game has started: use dbnet "
    "resume FILE INVITE with the invite the host printed"
)
"""...and a joiner resuming a game whose ACCEPT the host has not logged."""

Chooser = Callable[[Game], Awaitable[str]]
"""Given this player's view of the game, a decision in notation (or ``RESIGN``)."""


def disk_full_advice(exc: DiskFullError, entries: int) -> str:
    """The one line for a replay whose disk filled up: the file, the error, and what to
    do next (``entries``: how many the file holds; none: there is no game to resume)."""
    if entries:
        return f"{exc}. Free some space on that disk, then go on with: dbnet resume {exc.where}"
    return (
        f"{exc}. Free some space on that disk, then start the game again: {exc.where} "
        "holds no entry, and a new game may replace it"
    )


class GameSessionError(DbnetError):
    """The game cannot go on with this peer: misbehaviour, a refused key, a wrong game.

    ``to_peer`` is what the peer is told in BYE (by default the message itself).
    """

    def __init__(self, message: str, *, to_peer: str | None = None) -> None:
        super().__init__(message)
        self.to_peer = message if to_peer is None else to_peer


class PeerLeftError(GameSessionError):
    """The peer ended the session with a reason (BYE before the game was complete)."""


class Outcome(enum.Enum):
    COMPLETE = "complete"  # the log is complete here (and the peer said so, or left)
    ADJOURNED = "adjourned"  # the peer stayed away too long; resume later
    UNREACHED = "unreached"  # the joiner never reached its host: no game was started


def resume_command(path: Path | None, name: str, *, claim: bool = False) -> str:
    """The command that goes on with this side's game: the same replay, the same ``--name``
    (the opponent pinned this key under it) and the same ``DBNET_HOME`` (where this
    identity lives), quoted for a shell."""
    home = os.environ.get("DBNET_HOME")
    words = ["dbnet", "resume", str(path), *(["--claim-timeout"] if claim else ["[HOST:PORT]"])]
    words += ["--name", name]
    command = " ".join(w if w == "[HOST:PORT]" else shlex.quote(w) for w in words)
    return command if not home else f"DBNET_HOME={shlex.quote(home)} {command}"


def withheld_result(game: RemoteGame | None) -> str | None:
    """When the game is over but the other player withheld its FINAL or COSIGN: who won,
    as the game's state decides it, and that the replay verifies as that result (the
    verifier's *decided*); else None. Withholding a signature gains a loser nothing."""
    winner = None if game is None or game.is_closed else game.log.game.winner
    if winner is None:
        return None
    assert game is not None
    who = "you" if winner is game.me else "the opponent"
    return (
        f"the game is over: {who} ({winner.name}) won; the opponent did not sign the "
        "result, but the replay verifies as decided by the game's own state (dbnet verify)"
    )


class _AdjournedError(Exception):
    """The peer, connected, did not write the entry it owes for ``adjourn_after``."""


class _ConnectionLostError(Exception):
    """This connection is over; the game is not (a reconnection resumes it)."""


@dataclass(frozen=True, slots=True)
class NewGame:
    """What this side brings to a game not started yet."""

    warband: Warband
    options: Options = field(default_factory=Options)
    game_map: MapDef | None = None  # the host's map; None: the standard one
    nonce: bytes | None = None  # this side's game nonce (A's or B's); None: a fresh one
    clock: ClockSetting | None = None  # the host's clock; None: no clock
    limited: str | None = None  # a Limited format (docs/limited.md); None: Constructed


@dataclass
class LocalPlayer:
    """The player at this end of a network game: their key and name, their seat (a person
    or a bot: ``match.seats``) and how the session reaches them (the console swaps in its
    own ``choose``, ``say`` and ``on_events``).

    ``name`` is said in HELLO and signed in the OFFER or ACCEPT (the peer checks that
    they agree). A decision is asked of ``seat`` first (a bot's Limited build is made at
    once); when it answers later, ``choose`` is awaited for it."""

    identity: Identity
    name: str
    choose: Chooser
    say: Callable[[str], None]
    seat: Seat = field(default_factory=PersonSeat)
    known_peers: KnownPeers | None = None
    expect: str | None = None  # the peer's fingerprint, compared out of band
    on_events: Callable[[list[Event]], None] | None = None
    played: PlayedGames | None = None  # the game ids started here; a repeat is refused
    ask_rematch: Ask | None = None
    """Asks the person whether to play another game when one ends (``dbnet.net.rematch``);
    None: the rematch policy answers alone."""
    on_rematch: Callable[[GameSession], None] | None = None
    """Given the next game's session when a rematch starts (the console shows that game)."""
    builder: Builder | None = None
    """Limited play: the builder ``choose`` (or a bot's seat) commits and reveals with; the
    session binds it to the game (its salt and the committed warband's file beside the
    replay)."""
    chat: ChatRoom | None = None
    """The players' chat (``dbnet.net.chat``): the front end says lines through it; None:
    the session keeps one that shows the peer's lines with ``say``."""


class _Signal:
    """Wakes every task waiting for a change of the game or the connection. Take ``event``
    before looking at the state, then wait on it: a change in between is not missed."""

    def __init__(self) -> None:
        self.event = trio.Event()

    def notify(self) -> None:
        self.event.set()
        self.event = trio.Event()


@dataclass
class _Exchange:
    """What one connection knows of the peer."""

    peer_has: int  # entries the peer holds (it told us, or we sent or got them since)
    peer_done: bool = False  # the peer said BYE (done)
    said_done: bool = False  # we said BYE (done)
    peer_gone: trio.Event = field(default_factory=trio.Event)  # ...and then it closed


def seat_narrator(log: GameLog, me: Player) -> Narrator:
    """The story of ``log`` as the player in seat ``me`` is told it (``A (you)``, ``B
    (peer)``), attached to the log (``Narrator.attach``)."""
    names = ("you", "peer") if me is Player.A else ("peer", "you")
    narrator = Narrator(log.game.setup, names)
    narrator.attach(log)
    return narrator


def restore_game(
    identity: Identity, records: list[bytes], save: Callable[[bytes], None], *, name: str
) -> RemoteGame:
    """``RemoteGame.restore`` with the session's narrator attached before the records are
    checked: a resumed game's story is told as its log checks it, and not played again
    (a ``GameSession`` given this game tells it). ``name`` is the player's (``LocalPlayer``'s),
    signed in the ACCEPT a joiner that stopped before it writes now."""
    return RemoteGame.restore(identity, records, save, attach=_attach_narrator, name=name)


def _attach_narrator(log: GameLog, me: Player) -> None:
    seat_narrator(log, me)


@asynccontextmanager
async def _nursery() -> AsyncIterator[trio.Nursery]:
    """A nursery that raises its first error itself rather than in an exception group,
    so that callers can catch the session's own errors."""
    try:
        async with trio.open_nursery() as nursery:
            yield nursery
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        first = next((e for e in leaves if not isinstance(e, trio.Cancelled)), leaves[0])
        raise first from group


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return out
