"""A game over the network: connections, liveness, reconnection (the thin trio layer).

``GameSession`` plays one game over as many connections as it takes. Each
connection runs the same steps (docs/network.md):

1. the handshake (``open_channel``): an encrypted channel with the peer's key;
2. HELLO both ways: names, the game (if any) and how many of its entries each
   side holds; the peer's key is checked against the game's, the known-peers
   file (a changed key is refused) and ``--expect``;
3. for a new game, the host (A) writes the OFFER with the joiner's warband and
   the joiner (B) accepts it; then each side sends the entries the other lacks,
   which the other drops if it holds them already;
4. the game: whoever owes the next entry writes it, saves it to the replay file
   (appended and fsynced) and sends it; the other checks and saves it. A PING
   goes out after ``ping_after`` seconds without sending; a peer silent for
   ``dead_after`` seconds is taken for gone (this catches half-open connections);
5. when the log is complete, each side says BYE (done) and both close.

The player (a person or a bot) decides in a task of its own that outlives the
connections: a decision being made when a connection drops is not lost, and
is sent once the peer is back. A broken connection (closed, timed out,
corrupted) ends step 4 with nothing lost: the host listens again, the joiner
reconnects with backoff, and step 3's resend resumes the game. After
``adjourn_after`` seconds without the peer the game is adjourned: ``dbnet
resume FILE`` goes on with it later, or records a signed timeout claim.

Misbehaviour of the game's peer (an invalid entry, equivocation, a malformed
message, a flood) ends the game session with ``GameSessionError``; the proof of
an equivocation is saved beside the replay first (``dbnet.replay.evidence``). The host
refuses a connection it cannot play with (another key, another game, a
fingerprint other than ``--expect``, a changed key) and waits on for its
opponent, so a stranger cannot end its game; the joiner stops, since the host
it reached is not the one it wants.

All game rules live in ``dbnet.protocol``; this module moves bytes and keeps time.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import functools
import math
import os
import secrets
import shlex
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypeVar

import trio

from dbnet.engine import (
    ChanceRequest,
    Game,
    GameSetup,
    MapDef,
    Options,
    Player,
    Warband,
    format_choice,
)
from dbnet.engine.model import Limited
from dbnet.errors import DbnetError, KnownPeerMismatchError
from dbnet.match.building import Builder
from dbnet.match.driver import Driver
from dbnet.match.seats import PeerSeat, PersonSeat, Seat
from dbnet.match.story import Event, EventKind, Narrator
from dbnet.net.chat import ChatRoom
from dbnet.net.clocks import SessionClocks, clock_claim_result
from dbnet.net.errors import NetError, VersionMismatchError, WrongHostError
from dbnet.net.gate import Gate
from dbnet.net.handshake import HOST, JOINER, PUNCH_VERSION
from dbnet.net.holepunch import PunchDoor, punch
from dbnet.net.link import FloodError, Link, Timing
from dbnet.net.messages import (
    Bye,
    Candidates,
    Chat,
    Entry,
    Hello,
    Message,
    MessageError,
    Ping,
    Pong,
    Punch,
    RematchMessage,
    encode_message,
)
from dbnet.net.played import PlayedGames
from dbnet.net.proof import invite_secret, proof, proof_matches, watch_secret
from dbnet.net.rematch import Ask, Rematch, RematchError, ask_player
from dbnet.net.rendezvous import Door
from dbnet.net.reverse import Candidates as OwnCandidates
from dbnet.net.reverse import send_candidates, try_candidates
from dbnet.net.spectators import Spectating, Spectators
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.clock import ClockSetting
from dbnet.protocol.errors import InvalidEntryError, ProtocolError
from dbnet.protocol.identity import Identity, KnownPeers, fingerprint, same_fingerprint
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.peer import RULES_VERSION
from dbnet.protocol.remote import EquivocationError, RemoteGame
from dbnet.replay.errors import DiskFullError
from dbnet.replay.evidence import save_evidence
from dbnet.replay.file import ReplayWriter
from dbnet.replay.paths import default_replay_path, now_utc, start_replay
from dbnet.text import os_error_words, printable
from dbnet.wire import codec

__all__ = [
    "RESIGN",
    "RESUME_NEEDS_INVITE",
    "SEAT_NEEDS_INVITE",
    "Chooser",
    "GameSession",
    "GameSessionError",
    "LocalPlayer",
    "NewGame",
    "Outcome",
    "PeerLeftError",
    "Timing",
    "clock_claim_result",
    "disk_full_advice",
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
ARRIVALS_QUEUED: Final = 8
"""Connections the host keeps waiting while it serves one; more are closed at once."""

Chooser = Callable[[Game], Awaitable[str]]
"""Given this player's view of the game, a decision in notation (or ``RESIGN``)."""


_T = TypeVar("_T")


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


class GameSession:
    """One game with one peer, over as many connections as it takes."""

    def __init__(
        self,
        player: LocalPlayer,
        *,
        game: RemoteGame | None = None,
        writer: ReplayWriter | None = None,
        new_game: NewGame | None = None,
        replay_path: Path | None = None,
        timing: Timing | None = None,
        invite_secret: bytes | None = None,
        spectating: Spectating | None = None,
        open_seat: bool = False,
        rematch: Rematch | None = None,
    ) -> None:
        if (game is None) == (new_game is None):
            raise ValueError("give either a game to resume or a new game's warband")
        self.player = player
        self.game = game
        self.writer = writer
        self.new_game = new_game
        self.replay_path = replay_path
        self._given_path = replay_path  # None: a default path from the game id
        self.timing = timing or Timing()
        self.invite_secret = invite_secret
        """The secret of the invite this side made (host) or was given (joiner), if any:
        each side proves it knows it (``dbnet.net.proof``). A host with one seats only a
        joiner that proves it, on every path, until the game has started (then the
        logged keys bind the seats), unless ``open_seat`` or the player's ``expect``."""
        self.open_seat = open_seat
        """Whether a host that made an invite also seats a joiner without its proof
        (``dbnet host --open``): the first that reaches a direct path. The relay path
        always needs the proof."""
        self.spectating = spectating
        """Whether a host admits spectators, how many and how far behind the game
        (``dbnet.net.spectators``); None: none (every connection is for the seat)."""
        self.spectators: Spectators | None = None
        self.kept_spectators: list[tuple[SecureStream, str]] = []
        """Spectators that stayed from the last game of a series: served this one too."""
        self.rematch = rematch or Rematch()
        """The rematch exchange after the game (``dbnet.net.rematch``); by default this
        side declines."""
        self.rematch_stream: SecureStream | None = None
        """The connection a rematch was agreed on, kept open for the next game."""
        """The spectators of the game served now (``serve``), if admitted."""
        self.narrator: Narrator | None = None
        self.peer_name: str | None = None
        self.connected = False
        """Whether the current connection's peer is accepted as this game's opponent."""
        self.connections = 0
        """Connections on which the game's peer was accepted (the first and reconnections)."""
        self.messages_sent = 0
        """Messages sent on all connections (HELLO, entries, PINGs, ...)."""
        self._joining = False  # whether this side is the joiner (its role, not who connected)
        self._hosting = False  # whether this side waits for connections (host or resume)
        self._created_at: str | None = None  # a new game's replay creation time, once fixed
        self._nonce = b""  # a new game's nonce from this side (A's or B's), once drawn
        if new_game is not None:
            self._nonce = new_game.nonce if new_game.nonce is not None else secrets.token_bytes(32)
        self._peer_remembered = False  # the peer's key is in known_peers (or needs not be)
        self._next: SecureStream | None = None  # the connection to play on next (switch_to)
        self._switch_scope = trio.CancelScope()  # what switch_to interrupts
        self._tasks: trio.Nursery | None = None  # the current connection's tasks
        self._dialled: Link | None = None  # the connection whose candidates were tried
        self.own_candidates: OwnCandidates | None = None
        """A joiner's: where it listens for the host to connect to it (its router's port
        mapping, ``dbnet.net.reverse``), once known; sent over a relayed connection."""
        self.punch_door: PunchDoor | None = None
        """This side's hole-punching sockets (``dbnet.net.holepunch``): a relayed
        connection tries to move the game to a punched path; None: it stays relayed."""
        self._punches: tuple[Link, trio.MemorySendChannel[Punch]] | None = None
        self._session_tasks: trio.Nursery | None = None  # lives across connections
        self._changed = _Signal()
        self._last_contact = trio.current_time() if _in_trio() else 0.0
        self.chat = player.chat or ChatRoom(player.say)
        """The players' chat lines (``dbnet.net.chat``), beside the game."""
        self.clocks = SessionClocks(lambda text: self.player.say(text), self._changed.notify)
        """This side's clocks, in a game with a clock (``dbnet.net.clocks``)."""
        if game is not None:
            if writer is not None:
                self._save_with(game, writer)
            self._start_narrator(game)

    # --- the outer loops --------------------------------------------------------------

    async def host(
        self,
        listeners: list[trio.SocketListener],
        doors: Sequence[Door] = (),
        first: SecureStream | None = None,
    ) -> Outcome:
        """Serve the game on ``listeners`` and ``doors`` (the relay; this side answers
        the handshake) until it is complete or adjourned; one connection at a time, each
        authenticated first, side by side with the others (``dbnet.net.gate``), so idle
        strangers cannot hold the door. ``first``: a rematch's connection, played first."""
        incoming, arrivals = trio.open_memory_channel[trio.abc.Stream | SecureStream](
            ARRIVALS_QUEUED
        )
        gate = Gate(
            self.player.identity,
            incoming,
            lambda text: self.player.say(text),
            handshake_timeout=self.timing.handshake_timeout,
            frame_timeout=self.timing.frame_timeout,
        )
        if first is not None:
            incoming.send_nowait(first)
        try:
            async with _nursery() as nursery:
                for listener in listeners:
                    nursery.start_soon(gate.serve, listener, nursery)
                for door in doors:
                    nursery.start_soon(door, functools.partial(_admit, gate, nursery))
                outcome = await self.serve(arrivals)
                nursery.cancel_scope.cancel()
        finally:  # close the connections still waiting, also when cancelled
            with trio.CancelScope(shield=True):
                while True:
                    try:
                        await trio.aclose_forcefully(arrivals.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
        return outcome

    async def serve(
        self,
        arrivals: trio.MemoryReceiveChannel[trio.abc.Stream]
        | trio.MemoryReceiveChannel[trio.abc.Stream | SecureStream],
    ) -> Outcome:
        """Take connections from ``arrivals`` (this side answers the handshake) until the
        game is complete or adjourned; ``host`` feeds it from TCP listeners. Before the
        game has started it waits for an opponent as long as it takes. With
        ``spectating``, spectators are told apart from the opponent by their first
        message and served beside the game (``dbnet.net.spectators``)."""
        if self.spectating is None:
            return await self._serve(arrivals)
        spectators = self.spectators = Spectators(
            self.spectating, self.player.identity, self.player.name, self.player.say, self.timing
        )
        to_seat, seats = trio.open_memory_channel[SecureStream](ARRIVALS_QUEUED)
        try:
            async with _nursery() as nursery:
                nursery.start_soon(spectators.run, arrivals, to_seat)
                nursery.start_soon(self._follow_for, spectators)
                for secure, name in self.kept_spectators:
                    nursery.start_soon(spectators.adopt, secure, name)
                self.chat.forward = spectators.chat
                outcome = await self._serve(seats)
                self._show(spectators)
                await spectators.finish(
                    f"the game is {outcome.value}: the host stops",
                    keep=self.rematch_stream is not None,
                )
                nursery.cancel_scope.cancel()
        finally:  # close the connections still waiting for the seat, also when cancelled
            with trio.CancelScope(shield=True):
                while True:
                    try:
                        await trio.aclose_forcefully(seats.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
        return outcome

    async def _follow_for(self, spectators: Spectators) -> None:
        """Show the spectators each change of the game (they never hold it up)."""
        while True:
            changed = self._changed.event
            self._show(spectators)
            await changed.wait()

    def _show(self, spectators: Spectators) -> None:
        game = self.game
        if game is not None and self._started(game):
            spectators.update(
                game.records, closed=game.is_closed, game_id=game.game_id, created=self._created()
            )

    async def _serve(
        self,
        arrivals: trio.MemoryReceiveChannel[trio.abc.Stream]
        | trio.MemoryReceiveChannel[trio.abc.Stream | SecureStream]
        | trio.MemoryReceiveChannel[SecureStream],
    ) -> Outcome:
        self._hosting = True
        self._last_contact = trio.current_time()
        async with self._playing():
            while True:
                stream: trio.abc.Stream | SecureStream | None = self._take_next()
                if stream is None:
                    with trio.move_on_at(self._give_up_at()):
                        stream = await self._switchable(arrivals.receive) or self._take_next()
                if stream is None:
                    return self._gave_up()
                try:
                    if await self._connection(stream, joining=False):
                        return Outcome.COMPLETE
                except _AdjournedError:
                    return Outcome.ADJOURNED

    async def join(
        self,
        connect: Callable[[], Awaitable[trio.abc.Stream | SecureStream]],
        first: SecureStream | None = None,
    ) -> Outcome:
        """Connect with ``connect`` (this side starts the handshake, unless ``connect``
        gives a stream that has done it, as ``dbnet.net.race`` does), reconnecting with
        backoff, until the game is complete or adjourned (or the host was never reached
        within ``adjourn_after``). ``first``: a rematch's connection, played first."""
        self._hosting = False
        self._last_contact = trio.current_time()
        failures = 0
        async with self._playing():
            while True:
                stream: trio.abc.Stream | SecureStream | None = first or self._take_next()
                first = None
                if stream is None:
                    with trio.move_on_at(self._give_up_at()):
                        dial = functools.partial(self._dial, connect, failures)
                        stream = await self._switchable(dial) or self._take_next()
                        if stream is None:
                            failures += 1
                            await self._switchable(
                                functools.partial(trio.sleep, self._backoff(failures))
                            )
                            continue
                if stream is None:
                    return self._gave_up()
                reached = self.connections
                try:
                    if await self._connection(stream, joining=True):
                        return Outcome.COMPLETE
                except _AdjournedError:
                    return Outcome.ADJOURNED
                failures = 0 if self.connections > reached else failures + 1
                with trio.move_on_at(self._give_up_at()):
                    await self._pause(self._backoff(failures))
                    continue
                return self._gave_up()

    async def _dial(
        self, connect: Callable[[], Awaitable[trio.abc.Stream | SecureStream]], failures: int
    ) -> trio.abc.Stream | SecureStream | None:
        try:
            return await connect()
        except WrongHostError as exc:  # no path can reach the key: retrying cannot help
            raise GameSessionError(printable(str(exc))) from None
        except (OSError, NetError) as exc:
            why = os_error_words(exc) if isinstance(exc, OSError) else printable(str(exc))
            delay = self._backoff(failures + 1)
            self.player.say(f"cannot reach the host: {why}; retrying in {delay:g} s")
            return None

    def switch_to(self, stream: SecureStream) -> None:
        """Play on ``stream`` from now on: a direct connection, authenticated (the host's
        to its joiner's port mapping, ``dbnet.net.reverse``), that opened while this side
        waits or plays on another (the relay). The current connection is left at once
        and the game goes on over ``stream`` from where each side's log is, as after a
        reconnection: nothing lost, repeated or reordered."""
        old, self._next = self._next, stream
        if old is not None and self._tasks is not None:
            self._tasks.start_soon(trio.aclose_forcefully, old)
        self.player.say(f"path: {stream.path}")
        self._switch_scope.cancel()

    async def _pause(self, seconds: float) -> None:
        await self._switchable(functools.partial(trio.sleep, seconds))

    def _take_next(self) -> SecureStream | None:
        stream, self._next = self._next, None
        return stream

    async def _switchable(self, run: Callable[[], Awaitable[_T]]) -> _T | None:
        """``run()``, unless ``switch_to`` gives a connection first (then None)."""
        if self._next is not None:
            return None
        with trio.CancelScope() as self._switch_scope:
            return await run()
        return None

    def _backoff(self, failures: int) -> float:
        backoff = self.timing.backoff
        return backoff[min(max(failures - 1, 0), len(backoff) - 1)]

    def _give_up_at(self) -> float:
        """When to stop waiting for the peer: never for a host whose game has not started;
        ``adjourn_after`` after the last contact; sooner once our log is complete (the
        peer has all it needs if it does not come back for what it lacks by then)."""
        game = self.game
        if self._hosting and not self._started(game):
            return math.inf
        wait = self.timing.adjourn_after
        if game is not None and game.is_closed:
            wait = min(wait, self.timing.dead_after)
        return self._last_contact + wait

    @staticmethod
    def _started(game: RemoteGame | None) -> bool:
        """Whether the game has started: both genesis entries (OFFER and ACCEPT) signed.
        Until then a host's OFFER binds nobody: the joiner may refuse it or vanish."""
        return game is not None and len(game.records) >= 2

    def _gave_up(self) -> Outcome:
        game = self.game
        if game is None:
            self.player.say(f"the host could not be reached for {self.timing.adjourn_after:g} s")
            return Outcome.UNREACHED
        if game.is_closed:
            self.player.say("the game's log is complete here; the opponent left without saying so")
            return Outcome.COMPLETE
        return Outcome.ADJOURNED

    @asynccontextmanager
    async def _playing(self) -> AsyncIterator[None]:
        """The player's task, alive across connections, while the body runs."""
        try:
            async with _nursery() as nursery:
                self._session_tasks = nursery
                if self.game is not None:
                    self.clocks.start(self.game, self.replay_path)
                nursery.start_soon(self._player)
                nursery.start_soon(
                    self.clocks.watch, lambda: self.game, lambda: self._changed.event
                )
                yield
                nursery.cancel_scope.cancel()
        finally:
            self.clocks.stop(self.game, self.replay_path)

    # --- the player -------------------------------------------------------------------

    async def _player(self) -> None:
        """Write this player's entries whenever one is due, connected or not (a record
        written while the peer is away is sent when it is back)."""
        while True:
            changed = self._changed.event
            game = self.game
            if game is not None and game.my_turn:
                await self._write_next(game)
                await trio.lowlevel.checkpoint()
                continue
            await changed.wait()

    @property
    def seats(self) -> tuple[Seat, Seat] | None:
        """Who sits where, once the game is known (A's, B's): this player's seat and the
        peer's."""
        game = self.game
        if game is None:
            return None
        peer = PeerSeat(self.peer_name or "peer")
        mine = self.player.seat
        return (mine, peer) if game.me is Player.A else (peer, mine)

    async def _write_next(self, game: RemoteGame) -> None:
        """Write what this player owes (``match.driver``), asking their seat when it is a
        decision (and, when the seat answers later, ``choose``)."""
        driver = Driver((game,))
        due = driver.due()
        if due is None:
            return
        held = len(game.records)
        if due.view is None:
            driver.write()
        else:
            self._narrate(game)  # whoever decides sees the story up to here first
            if self.player.builder is not None:
                self.player.builder.bind(self.player.identity, game.game_id, self.replay_path)
            made = self.player.seat.ask(due.view)  # else the answer comes from ``choose``
            if made is not None:
                decision = format_choice(due.view, made)
            else:
                decision = await self.player.choose(due.view)
            if len(game.records) != held or not game.my_turn:
                return  # the log moved while we thought (a claim): look again
            if decision == RESIGN:
                driver.resign(game.me)
            else:
                try:
                    driver.write(decision, made)
                except InvalidEntryError as exc:
                    self.player.say(f"illegal: {exc.reason}")
                    return
        self.clocks.follow(game)
        self._changed.notify()  # the send loop sends it, then tells the story
        if not self.connected:
            self._narrate(game)

    # --- one connection ---------------------------------------------------------------

    async def _connection(self, stream: trio.abc.Stream | SecureStream, *, joining: bool) -> bool:
        """Play over one connection as the joiner (``joining``) or the host: True when the
        game is complete on both sides, False when the connection was lost or refused
        (GameSessionError: the game cannot go on). A stream not yet authenticated gets
        the handshake here, this side its initiator when it joins; one authenticated
        already (the host's gate, a race, a reversed connection) says its role itself."""
        self._joining = joining
        initiator = joining
        try:
            secure = (
                stream
                if isinstance(stream, SecureStream)  # authenticated already
                else await open_channel(
                    stream,
                    self.player.identity,
                    initiator=initiator,
                    handshake_timeout=self.timing.handshake_timeout,
                    frame_timeout=self.timing.frame_timeout,
                )
            )
        except VersionMismatchError as exc:
            if initiator:
                raise GameSessionError(f"cannot play with this host: {exc}") from exc
            self.player.say(f"refused a connection: {exc}")
            return False
        except NetError as exc:
            self.player.say(f"connection failed: {exc}")
            return False
        if secure.role != (JOINER if joining else HOST):
            self.player.say(f"refused a connection: this side is not the {secure.role} there")
            await trio.aclose_forcefully(secure)
            return False
        link = Link(secure, self.timing)
        try:
            try:
                complete = await self._switchable(functools.partial(self._converse, link))
                return bool(complete)  # None: the game moved to another connection
            except (MessageError, FloodError) as exc:
                raise GameSessionError(
                    f"the peer broke the protocol: {printable(str(exc))}",
                    to_peer=f"you broke the protocol: {exc}",
                ) from exc
            except ProtocolError as exc:  # its reason may quote the peer's names
                raise GameSessionError(
                    f"the peer sent an invalid entry: {printable(str(exc))}"
                    f"{self._keep_evidence(exc)}",
                    to_peer=f"your entry was refused: {exc}",
                ) from exc
        except GameSessionError as exc:
            await link.say_bye(exc.to_peer)
            if joining or (self.connected and self._started(self.game)):
                raise
            if self.connected:  # the joiner refused or broke off the OFFER: not our game
                self.player.say(
                    f"no game with this joiner: {printable(str(exc))}; still "
                    "waiting for an opponent"
                )
                self._drop_refused_offer()
            else:
                self.player.say(
                    f"refused a connection: {printable(str(exc))}; still waiting for the opponent"
                )
            return False
        except _AdjournedError as exc:
            self.player.say(str(exc))
            await link.say_bye(f"adjourned: {exc}")
            raise
        except (_ConnectionLostError, NetError) as exc:
            if self.connected:
                self.player.say(f"connection lost ({_reason(exc)}); waiting to reconnect")
            else:
                self.player.say(f"connection failed: {_reason(exc)}")
            return False
        finally:
            self.connected = False
            self.messages_sent += link.sent
            if self.rematch.agreed:  # the next game is played on this connection
                self.rematch_stream = secure
            elif self._next is not None and self._session_tasks is not None:
                # The game moved (switch_to); the peer moves too, an instant later.
                # Closed at once, this connection could end before the peer's side of
                # the new one is ready, and the peer would count it as lost.
                self._session_tasks.start_soon(_close_later, link)
            else:
                await link.close()

    def _drop_refused_offer(self) -> None:
        """A new game's OFFER refused before its ACCEPT (by either side) is no game: its
        replay, written ahead of sending it, is removed, so that no unfinished file of a
        game that never started is left to ``dbnet verify`` and ``dbnet event``. (A
        connection lost after the OFFER keeps it: the joiner may hold its ACCEPT, and
        the game resumes from the OFFER. A resumed game's file is never removed.)"""
        if self.new_game is None or self.game is None or self._started(self.game):
            return
        path = self.replay_path
        self._discard_offer()
        if path is not None:
            self.player.say(f"the refused OFFER's replay {path} is removed")

    def _keep_evidence(self, exc: ProtocolError) -> str:
        """Save the proof of an equivocation beside the replay (``dbnet.replay.evidence``);
        what to add to the message: where it is, or why it could not be saved."""
        if not isinstance(exc, EquivocationError):
            return ""
        writer, game = self.writer, self.game
        if writer is None or game is None:
            return ""
        first, second = exc.evidence
        try:
            path = save_evidence(writer.path, writer.header, game.records[0], first, second)
        except DbnetError as error:
            return f"; the evidence could not be saved: {error}"
        return f"; the evidence is saved in {path} (check it with dbnet verify)"

    async def _converse(self, link: Link) -> bool:
        async with _nursery() as nursery:
            self._tasks = nursery
            nursery.start_soon(link.heartbeat)
            hello = await self._exchange_hellos(link)
            self._check_proof(link, hello)
            self._check_peer(link.peer_key, hello)
            self._check_game(hello)
            self._last_contact = trio.current_time()
            self.connected = True
            self.connections += 1
            self.peer_name = hello.name
            self.player.say(
                f"connected to {printable(hello.name)} ({fingerprint(link.peer_key)}) "
                f"via {link.stream.path}"
            )
            if self._joining and link.stream.path == RELAY and self.own_candidates is not None:
                nursery.start_soon(send_candidates, link, self.own_candidates, self.player.say)
            if link.stream.path == RELAY and link.stream.version >= PUNCH_VERSION:
                self._start_punch(link, nursery)
            exchange = _Exchange(peer_has=hello.have)
            game = await self._ensure_game(link, hello, exchange)
            self._remember_peer(game, link.peer_key)
            complete = await self._play(link, game, exchange)
            nursery.cancel_scope.cancel()
        return complete

    async def _exchange_hellos(self, link: Link) -> Hello:
        game = self.game
        ours = Hello(
            name=self.player.name,
            game_id=None if game is None else game.game_id,
            have=0 if game is None else len(game.records),
            warband=self._joiner_warband(),
            created=None if self._joining else self._created(),
            nonce=self._nonce if self._joiner_warband() is not None else None,
            proof=(
                None
                if self.invite_secret is None
                else proof(self.invite_secret, link.stream.transcript, joiner=self._joining)
            ),
        )
        message: Message | None = None
        # Both sides send first: sending while receiving keeps a stream with no buffer
        # (or a full one) from holding both HELLOs back.
        async with _nursery() as nursery:
            nursery.start_soon(link.send, ours)
            with trio.move_on_after(self.timing.hello_timeout):
                message = await link.receive()
                while isinstance(message, Ping | Pong):  # a rematch's connection stays alive
                    link.charge()
                    message = await link.receive()
        if message is None:
            raise _ConnectionLostError("no HELLO from the peer in time")
        if isinstance(message, Bye):
            raise PeerLeftError(f"the peer hung up: {printable(message.reason)}")
        if not isinstance(message, Hello):
            raise GameSessionError(f"the peer's first message is not HELLO but {message!r}")
        return message

    def _created(self) -> str:
        """The creation time of this side's replay header (fixed when first asked, for a
        game not started yet): the host tells the joiner, whose header copies it."""
        if self.writer is not None:
            return self.writer.header.created
        if self._created_at is None:
            self._created_at = now_utc().isoformat().replace("+00:00", "Z")
        return self._created_at

    def _joiner_warband(self) -> Warband | None:
        """The warband to send in HELLO: a new game's joiner sends it."""
        if self.game is None and self.new_game is not None and self._joining:
            return self.new_game.warband
        return None

    def _check_proof(self, link: Link, hello: Hello) -> None:
        """Whether the peer knows the invite's secret, where it must (``dbnet.net.proof``):
        a host this side joined through an invite always; a joiner of a host that made an
        invite on every path (LAN, IPv6, port mapping, relay, a reconnection) until the
        game has started, unless the host named the joiner's key (``expect``, which
        ``_check_peer`` checks) or seats anyone (``open_seat``, not through the relay:
        whoever learned the relay token must not take the seat)."""
        secret = self.invite_secret
        if secret is None or self._started(self.game):
            return  # a started game binds both keys: _check_peer asks for the game's own
        peer_joins = not self._joining
        if hello.proof is None:
            if self._joining:
                raise GameSessionError(
                    "the host did not prove that it made the invite (it has no proof of the "
                    "invite's secret): refusing to play",
                    to_peer="you did not prove that you made the invite",
                )
            if link.stream.path == RELAY:
                raise GameSessionError(
                    "a peer came through the relay without proof of the invite's secret",
                    to_peer="the relay path needs the invite: use dbnet join INVITE",
                )
            if self.open_seat or self.player.expect is not None:
                return
            raise GameSessionError(
                "a joiner came without proof of the invite's secret (this host seats only "
                "the holder of its invite, a key named with --expect, or anyone with --open)",
                to_peer=SEAT_NEEDS_INVITE if hello.game_id is None else RESUME_NEEDS_INVITE,
            )
        if not proof_matches(secret, link.stream.transcript, hello.proof, joiner=peer_joins):
            who = "joiner" if peer_joins else "host"
            raise GameSessionError(
                f"the {who}'s proof of the invite's secret is wrong (another invite, or an old "
                "one)",
                to_peer="your proof of the invite's secret is wrong: ask for a fresh invite",
            )

    def own_invite_secret(self) -> bytes:
        """The secret of the invites this side prints as host (``proof.invite_secret``):
        of its nonce in this game, the same when the game is resumed."""
        return invite_secret(self.player.identity, self._own_nonce())

    def own_watch_secret(self) -> bytes:
        """The secret of the spectator invites this side prints as host
        (``proof.watch_secret``): never the player's."""
        return watch_secret(self.player.identity, self._own_nonce())

    def _own_nonce(self) -> bytes:
        """This side's nonce in this game (the game id if it has none)."""
        game = self.game
        nonce = self._nonce
        if game is not None:
            body = game.log.decoded[0].body
            assert isinstance(body, codec.OfferBody)
            mine = body.nonce if game.me is Player.A else body.joiner_nonce
            nonce = game.game_id if mine is None else mine
        return nonce

    def _check_peer(self, key: bytes, hello: Hello) -> None:
        player = self.player
        print_key = fingerprint(key)
        if key == player.identity.public_key:
            raise GameSessionError(
                f"the peer has this player's own key ({print_key}): two players on one "
                "machine need one DBNET_HOME each (e.g. DBNET_HOME=~/.dbnet-bob dbnet join "
                "...), or they share one identity",
                to_peer="you have my own key: give each player a DBNET_HOME of their own",
            )
        if player.expect is not None and not same_fingerprint(player.expect, print_key):
            raise GameSessionError(
                f"the peer's key fingerprint is {print_key}, not the expected {player.expect}: "
                "refusing to play (check the fingerprint with your opponent)",
                to_peer="your key is not the one this player expects",
            )
        game = self.game
        if game is not None and not self._offer_replaceable(hello):
            other = game.log.keys[game.me.other]
            if key != other:
                raise GameSessionError(
                    f"the peer ({printable(hello.name)}, {print_key}) is not the other player "
                    f"of this game ({fingerprint(other)})",
                    to_peer="you are not the other player of this game",
                )
        if player.known_peers is not None:
            try:
                player.known_peers.check(hello.name, key)
            except KnownPeerMismatchError as exc:
                raise GameSessionError(
                    str(exc), to_peer=f"your key is not the one remembered for {hello.name!r}"
                ) from exc

    def _remember_peer(self, game: RemoteGame, key: bytes) -> None:
        """Pin the peer's key in known_peers once the game has started with it (both
        genesis entries signed): a stranger who is refused, or who never answers the
        OFFER, leaves nothing behind under any name."""
        known = self.player.known_peers
        if self._peer_remembered or len(game.records) < 2 or self.peer_name is None:
            return
        self._peer_remembered = True
        if known is not None and known.check(self.peer_name, key) == "new":
            known.remember(self.peer_name, key)
            name = printable(self.peer_name)
            self.player.say(f"first game with {name}: key {fingerprint(key)} remembered")

    def _check_game(self, hello: Hello) -> None:
        """Whether the peer's HELLO fits this side's game (or new game)."""
        game = self.game
        if game is not None:
            if hello.game_id is not None and hello.game_id != game.game_id:
                raise GameSessionError(
                    "the peer is resuming another game (its game id differs from ours)"
                )
            if hello.game_id is None and not (self._hosting and len(game.records) == 1):
                # Only a joiner whose ACCEPT never arrived may come back without the game.
                raise GameSessionError(
                    f"the peer has no copy of this game ({len(game.records)} entries); it "
                    "must resume it from its replay (dbnet resume FILE HOST:PORT)"
                )
            return
        if self._joining:
            if hello.warband is not None:
                raise GameSessionError("the host sent a warband: both sides are trying to join")
            if hello.game_id is not None and hello.have != 1:
                raise GameSessionError(
                    f"the host is resuming an earlier game with you ({hello.have} entries): "
                    "go on with it with dbnet resume YOUR_REPLAY HOST:PORT"
                )
        else:
            if hello.game_id is not None:
                raise GameSessionError(
                    "the peer is resuming a game, but this side starts a new one"
                )
            if hello.warband is None:
                raise GameSessionError("the peer sent no warband: it is not joining a new game")
            if hello.nonce is None:
                raise GameSessionError(
                    "the peer sent no nonce for the new game: it speaks an older protocol"
                )

    def _offer_replaceable(self, hello: Hello) -> bool:
        """Whether this host's game is an OFFER nobody accepted and ``hello`` is a new
        joiner's: the OFFER binds nobody, so it may give way to a new one. (Not in a
        resumed game: it has no new game to offer instead, and its joiner is the OFFER's.)"""
        return (
            self._hosting
            and not self._joining
            and self.new_game is not None
            and self.game is not None
            and not self._started(self.game)
            and hello.game_id is None
            and hello.warband is not None
        )

    def _same_joiner(self, key: bytes, hello: Hello) -> bool:
        """Whether the OFFER held is the one this joiner asked for (same key, nonce and
        warband): then it is sent again (the joiner's ACCEPT was lost)."""
        game = self.game
        assert game is not None
        body = game.log.decoded[0].body
        assert isinstance(body, codec.OfferBody)
        return (
            body.keys[1] == key
            and body.joiner_nonce == hello.nonce
            and hello.warband is not None
            and body.setup.warbands[1] == _warband_in(body.setup.limited, hello.warband)
        )

    def _discard_offer(self) -> None:
        """Forget an OFFER nobody accepted: its replay (ours, holding that OFFER alone) is
        removed, so a new game takes its place (and its path, if one was given)."""
        if self.writer is not None:
            self.writer.close()
        if self.replay_path is not None:
            self.replay_path.unlink(missing_ok=True)
        self.game = None
        self.writer = None
        self.narrator = None
        self.replay_path = self._given_path
        self._peer_remembered = False

    async def _ensure_game(self, link: Link, hello: Hello, exchange: _Exchange) -> RemoteGame:
        replace = self._offer_replaceable(hello) and not self._same_joiner(link.peer_key, hello)
        if replace:
            self.player.say("the OFFER made before was not accepted: offering a new game")
            self._discard_offer()
        if self.game is not None:
            return self.game
        if not self._joining:
            assert hello.warband is not None  # _check_game
            assert hello.nonce is not None
            return self._offer(link.peer_key, hello.warband, hello.nonce)
        game = await self._accept(link, hello)
        exchange.peer_has = max(exchange.peer_has, 1)  # the host sent us its OFFER
        return game

    def _offer(self, peer_key: bytes, their_warband: Warband, joiner_nonce: bytes) -> RemoteGame:
        new = self.new_game
        assert new is not None
        from dbnet.catalog import load_map
        from dbnet.catalog.check import check_warband

        try:
            check_warband(their_warband, "the joiner's warband")
        except DbnetError as exc:
            raise GameSessionError(
                f"refused the joiner's warband: {exc}", to_peer=f"your warband is refused: {exc}"
            ) from exc
        game_map = new.game_map if new.game_map is not None else load_map()
        setup = GameSetup(game_map, (new.warband, their_warband), options=new.options)
        if new.limited is not None:
            setup = _limited_offer(setup, new.limited)
        holder: list[bytes] = []
        game = RemoteGame.offer(
            self.player.identity,
            peer_key,
            setup,
            holder.append,
            nonce=self._nonce,
            joiner_nonce=joiner_nonce,
            name=self.player.name,
            clock=None if new.clock is None else new.clock.wire,
        )
        self._check_fresh(game.game_id)
        self._open_replay(game, holder)
        return game

    def _check_fresh(self, game_id: bytes) -> None:
        """Refuse a new game whose id was played here before (its dice would repeat), and
        record it otherwise, before anything of the game is sent."""
        played = self.player.played
        if played is None:
            return
        if game_id in played:
            raise GameSessionError(
                f"the new game's id {game_id.hex()[:16]} was played here before: refusing it, "
                "since its dice would repeat the earlier game's (the other side reused its "
                "nonce; with --seed, use another seed)",
                to_peer="this game id was played before: start a new game with fresh nonces",
            )
        played.add(game_id)

    async def _accept(self, link: Link, hello: Hello) -> RemoteGame:
        new = self.new_game
        assert new is not None
        message: Message | None = None
        with trio.move_on_after(self.timing.hello_timeout):
            while True:
                message = await link.receive()
                if isinstance(message, Entry):
                    break
                if isinstance(message, Bye):
                    raise PeerLeftError(f"the host hung up: {printable(message.reason)}")
                if isinstance(message, Hello):
                    raise GameSessionError("the host sent HELLO twice")
                link.charge()
                if isinstance(message, Ping):
                    await link.send(Pong(message.token))
        if not isinstance(message, Entry):
            raise _ConnectionLostError("no OFFER from the host in time")
        offer = _offered_setup(
            message.record,
            self.player.identity,
            link.peer_key,
            new.warband,
            self._nonce,
            hello.name,
        )
        _check_limited_offer(offer.setup, new.limited)
        self.player.say(_terms(offer, new.warband))  # before the ACCEPT
        holder: list[bytes] = []
        try:
            game = RemoteGame.accept(
                self.player.identity, message.record, holder.append, name=self.player.name
            )
        except ProtocolError as exc:
            raise GameSessionError(
                f"the host's OFFER is refused: {exc}", to_peer=f"your OFFER is refused: {exc}"
            ) from exc
        self._check_fresh(game.game_id)
        if hello.created is not None:
            self._created_at = hello.created  # the same header as the host's
        self._open_replay(game, holder)
        return game

    def _open_replay(self, game: RemoteGame, saved: list[bytes]) -> None:
        """Create the replay file of a new game and write its first records to it."""
        log = game.log
        created = self._created()
        header = codec.ReplayHeader(
            format=log.version,  # format N holds entries of protocol version N
            protocol=log.version,
            rules=log.rules,
            game_id=log.game_id,
            keys=log.keys,
            created=created,
        )
        when = datetime.datetime.fromisoformat(created.replace("Z", "+00:00"))
        mine = self.player.identity.public_key
        path = self.replay_path or default_replay_path(log.game_id, when, reuse_for=mine)
        # a replay of ours that holds no entry (a disk that filled before the OFFER
        # fitted) is replaced: nothing in it can be lost
        writer = start_replay(path, header, replace_empty_for=mine)
        try:
            for record in saved:
                writer.append(record)
        except BaseException:
            writer.close()  # a full disk: the file keeps its header; resume says so
            raise
        self._save_with(game, writer)
        self.writer = writer
        self.replay_path = path
        self.game = game
        self.clocks.start(game, path)
        self.player.say(f"replay: {path}")
        self._start_narrator(game)
        self._changed.notify()

    def _save_with(self, game: RemoteGame, writer: ReplayWriter) -> None:
        """Save the game's records to ``writer``: ours fsynced before they are sent, the
        peer's written without waiting for the disk (the peer resends them if lost)."""
        game.save = writer.append
        game.save_received = functools.partial(writer.append, sync=False)

    def _start_narrator(self, game: RemoteGame) -> None:
        """Tell the game so far (a resumed game's whole story, told as ``restore_game``
        checked it) and follow it from here."""
        teller = game.log.teller
        if isinstance(teller, Narrator):
            self.narrator = teller
        else:
            self.narrator = seat_narrator(game.log, game.me)
        self._narrate(game)

    def _narrate(self, game: RemoteGame) -> None:
        """Tell the entries not told yet, then the rolls this player can already see."""
        narrator = self.narrator
        if narrator is None:
            return
        events = narrator.follow(game.log) + narrator.catch_up(game.peer)
        if events and self.player.on_events is not None:
            self.player.on_events(events)
        line = self.clocks.line()
        if line is not None and any(e.kind is EventKind.TURN for e in events):
            self.player.say(line)  # the clocks at every turn

    # --- the game over one connection --------------------------------------------------

    async def _play(self, link: Link, game: RemoteGame, exchange: _Exchange) -> bool:
        async with _nursery() as nursery:
            nursery.start_soon(self._receive_loop, link, game, exchange)
            if self._hosting and not self._started(game):
                nursery.start_soon(self._accept_in_time, game)
            nursery.start_soon(self._watch_progress, game)
            nursery.start_soon(self._serve_chat, link, game)
            if game.log.clock is not None:
                nursery.start_soon(link.ping)  # a first round trip for the clocks
            await self._send_loop(link, game, exchange)
            nursery.cancel_scope.cancel()
        return True

    async def _serve_chat(self, link: Link, game: RemoteGame) -> None:
        """The players' chat on this connection, once the game has started."""
        while not self._started(game):
            await self._changed.event.wait()
        self._bind_chat(game)
        await self.chat.serve(link.send, link.stream.version, lambda: len(game.records))

    def _bind_chat(self, game: RemoteGame) -> None:
        mine, theirs = self.player.name, self.peer_name or "the opponent"
        names = (mine, theirs) if game.me is Player.A else (theirs, mine)
        path = self.replay_path
        self.chat.bind(self.player.identity, game.game_id, game.me, game.log.keys, names, path)

    async def _watch_progress(self, game: RemoteGame) -> None:
        """A peer that stays connected (it answers PINGs) but does not write an entry it
        owes for a roll (its chain link: it may have seen the dice), FINAL or COSIGN is
        treated like an absent one: after ``adjourn_after`` without that entry the game
        is adjourned, instead of waiting for ever. A peer that owes a plain decision may
        think as long as it likes."""
        held, since = len(game.records), trio.current_time()
        while True:
            changed = self._changed.event
            if len(game.records) != held:
                held, since = len(game.records), trio.current_time()
            if game.is_closed or game.my_turn or not self._stalls_on(game):
                await changed.wait()
                continue
            with trio.move_on_at(since + self.timing.adjourn_after):
                await changed.wait()
                continue
            raise _AdjournedError(
                f"the opponent is connected but has not written its entry for "
                f"{self.timing.adjourn_after:g} s: the game is adjourned"
            )

    def _stalls_on(self, game: RemoteGame) -> bool:
        """Whether the peer owes an entry that needs no thinking of its own before it:
        a link for a roll, FINAL or COSIGN (in a started game)."""
        log = game.log
        if not self._started(game):
            return False
        return log.status in (Status.FINAL_DUE, Status.COSIGN_DUE) or isinstance(
            log.game.pending, ChanceRequest
        )

    async def _accept_in_time(self, game: RemoteGame) -> None:
        """A joiner that does not answer the OFFER within ``hello_timeout`` is dropped, so
        a silent stranger holds the host's seat only that long."""
        await trio.sleep(self.timing.hello_timeout)
        if not self._started(game):
            raise _ConnectionLostError("the joiner did not answer the OFFER in time")

    async def _send_loop(self, link: Link, game: RemoteGame, exchange: _Exchange) -> None:
        """Send every record the peer lacks as soon as it exists; once the log is complete
        and sent, say BYE (done) and wait for the peer's."""
        while True:
            changed = self._changed.event
            while exchange.peer_has < len(game.records):
                seq = exchange.peer_has
                await link.send(Entry(game.records[seq]))
                exchange.peer_has = max(exchange.peer_has, seq + 1)
            # The story comes after the sending: telling it is not on the game's
            # critical path (the peer waits for our entry, not for our screen).
            self._narrate(game)
            if game.is_closed:
                if not exchange.said_done:
                    # Said before it is sent: the peer may answer and close before this
                    # task runs again, and its close must then find this side done.
                    exchange.said_done = True
                    await link.send(Bye(True, "the game's log is complete"))
                if await self._rematch_answered(link):
                    return
                if exchange.peer_done and (self.rematch.settled or exchange.peer_gone.is_set()):
                    # The opener closes first; the other waits for that close, so that
                    # no unread byte makes its close reset the connection and destroy
                    # the last BYE before the opener reads it.
                    if not self._joining:
                        with trio.move_on_after(self.timing.hello_timeout):
                            await exchange.peer_gone.wait()
                    return
            await changed.wait()

    async def _rematch_answered(self, link: Link) -> bool:
        """Send this side's REMATCH once the game is over (``dbnet.net.rematch``) and say
        how it ended; True once both want another game on this connection."""
        version, ask, want = link.stream.version, self.player.ask_rematch, None
        if ask is not None and self.rematch.asks(version):
            want = await ask_player(self.rematch, ask, lambda: self._changed.event)
        answer = self.rematch.answer(version, want)
        if answer is not None:
            await link.send(answer)
        self._say_rematch()
        return self.rematch.agreed

    def _say_rematch(self) -> None:
        while self.rematch.said:
            self.player.say(printable(self.rematch.said.pop(0)))

    async def _receive_loop(self, link: Link, game: RemoteGame, exchange: _Exchange) -> None:
        while True:
            try:
                message = await link.receive()
            except NetError:
                if exchange.peer_done and exchange.said_done:
                    exchange.peer_gone.set()  # the peer closed after the last BYE
                    self._changed.notify()
                    return
                raise
            self._last_contact = trio.current_time()
            if isinstance(message, Entry):
                decoded = _decoded(message.record)  # once, for every check below
                if decoded is not None:
                    entry = decoded[1]
                    if len(game.records) == 1 and self.peer_name is not None:
                        _check_signed_name(entry.body, self.peer_name)
                    if self.clocks.too_late(game, entry):
                        link.charge()  # the peer's entry crossed our clock claim: too late
                        continue
                    replay = self.replay_path
                    if self.clocks.withheld(game, message.record, entry, replay):
                        link.charge()  # entries are missing before it: the peer's clock runs
                        continue
                    disputed = self.clocks.disputed(game, message.record, entry, replay)
                    if disputed is not None:
                        raise GameSessionError(
                            disputed, to_peer="your clock claim crossed my entry"
                        )
                if Driver((game,)).receive(message.record, decoded):
                    exchange.peer_has = max(exchange.peer_has, len(game.records))
                    self._remember_peer(game, link.peer_key)
                    self.clocks.follow(game)
                    self._changed.notify()  # the player answers; the send loop narrates
                else:
                    link.charge()  # an entry we hold
            elif isinstance(message, Bye):
                if not message.done:
                    if self.clocks.runs_for_peer(game):  # it does not stop its clock
                        self.player.say(
                            f"the opponent left: {printable(message.reason)}; its clock runs "
                            "on until it comes back, and you claim on time if it runs out"
                        )
                        raise _ConnectionLostError("the opponent left")
                    if self.clocks.own_claim(game) is None:
                        raise PeerLeftError(f"the peer left: {printable(message.reason)}")
                    # it disputes our claim on time, which closed our log: we are done
                    self.player.say(f"the opponent left: {printable(message.reason)}")
                    exchange.peer_gone.set()
                exchange.peer_done = True
                self._changed.notify()
            elif isinstance(message, RematchMessage):
                link.charge()
                try:
                    if not exchange.peer_done:  # REMATCH comes after the sender's BYE (done)
                        raise RematchError("the peer sent REMATCH before its BYE (done)")
                    self.rematch.receive(message, link.stream.version)
                except RematchError as exc:
                    raise GameSessionError(
                        f"the peer broke the protocol: {exc}",
                        to_peer=f"you broke the protocol: {exc}",
                    ) from exc
                self._say_rematch()
                self._changed.notify()
            elif isinstance(message, Hello) and self.rematch.agreed:
                link.stream.unread(encode_message(message))  # the next game's
                return
            elif isinstance(message, Hello):
                raise GameSessionError("the peer sent HELLO twice")
            elif isinstance(message, Chat) and self._started(game):
                self._bind_chat(game)
                self.chat.receive(message.line)  # checked there, a flood dropped there
            elif isinstance(message, Candidates):
                link.charge()
                self._dial_back(link, message)
            elif isinstance(message, Punch):
                link.charge()
                self._punched(link, message)
            else:
                link.charge()
                if isinstance(message, Ping):
                    await link.send(Pong(message.token))
                elif isinstance(message, Pong):
                    self.clocks.pong(link, message.token)

    def _start_punch(self, link: Link, nursery: trio.Nursery) -> None:
        """Try to move the game from the relay to a punched path (``dbnet.net.punch``),
        once per relayed connection, when this side has punching sockets."""
        door = self.punch_door
        if door is None:
            return
        send, receive = trio.open_memory_channel[Punch](1)
        self._punches = (link, send)
        nursery.start_soon(
            punch, link, door, receive, self.player.identity, self.timing, door.report,
            self.switch_to,
        )  # fmt: skip

    def _punched(self, link: Link, message: Punch) -> None:
        """The peer's PUNCH: to this connection's attempt, the first one only. A side
        that does not punch answers the first with none, so the peer stops at once."""
        punches = self._punches
        if punches is not None and punches[0] is link:
            with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError):
                punches[1].send_nowait(message)
        elif (
            self.punch_door is None
            and self._tasks is not None
            and (punches is None or punches[0] is not link)
        ):
            self._punches = (link, trio.open_memory_channel[Punch](0)[0])
            self._tasks.start_soon(link.send, Punch(()))

    def _dial_back(self, link: Link, message: Candidates) -> None:
        """A host on the relay tries its joiner's candidates, once a connection and within
        ``dbnet.net.reverse``'s bounds; the game moves to the first that proves the
        joiner's key. Anywhere else they are ignored."""
        if self._joining or link.stream.path != RELAY or self._dialled is link:
            return
        self._dialled = link
        assert self._tasks is not None
        self._tasks.start_soon(
            functools.partial(
                try_candidates,
                message.candidates,
                self.player.identity,
                link.peer_key,
                self.timing,
                self.player.say,
                self.switch_to,
            )
        )


SWITCH_LINGER: Final = 2.0
"""Seconds a connection the game moved away from stays open (unread) before it is
closed: the peer's move to the new one is then done."""


async def _close_later(link: Link) -> None:
    try:
        await trio.sleep(SWITCH_LINGER)
    finally:
        with trio.CancelScope(shield=True):
            await link.close()


LIMITED_WARBAND: Final = "Limited warband"
"""The name of the empty warband of a Limited game's player (built from packs in the game)."""


def _warband_in(limited: Limited | None, warband: Warband) -> Warband:
    """The joiner's ``warband`` as a game of these terms holds it: in a Limited game empty
    (it is built from the pool in the game; a joiner who brought one plays the host's
    terms, docs/limited.md), under its own name if it was empty already."""
    if limited is None or not warband.minis:
        return warband
    return Warband(LIMITED_WARBAND, ())


def _limited_offer(setup: GameSetup, fmt: str) -> GameSetup:
    """The host's Limited OFFER (docs/limited.md): both warbands empty (each is built from
    its pool in the game), the pack set of this dbnet's catalog. A joiner who brought a
    warband is offered the Limited game all the same: the OFFER carries the format, and
    the joiner is told it before it accepts."""
    from dbnet.catalog.packs import pack_set

    limited = Limited(fmt, pack_set())
    return GameSetup(
        setup.map,
        (Warband(setup.warbands[0].name, ()), _warband_in(limited, setup.warbands[1])),
        setup.options,
        limited,
    )


def _check_limited_offer(setup: GameSetup, fmt: str | None) -> None:
    """Refuse an OFFER of another format than ``--limited`` asked for, if it asked: a
    joiner without it plays the format the OFFER carries (Limited or Constructed)."""
    offered = None if setup.limited is None else setup.limited.format
    if fmt is None or offered == fmt:
        return
    said = "a Constructed game" if offered is None else f"Limited {offered}"
    raise GameSessionError(
        f"the host offers {said}, and this side asked for Limited {fmt}: join without "
        "--limited to play the host's terms",
        to_peer=f"your OFFER is refused: this side asked for Limited {fmt}",
    )


def _terms(offer: codec.OfferBody, warband: Warband) -> str:
    """The terms of the host's OFFER as the joiner is told them before it accepts: the
    map, the turns to win, the clock, the format and the warband this side plays."""
    setup, clock = offer.setup, offer.clock
    timed = "" if clock is None else f", a clock of {ClockSetting.from_wire(clock).describe()}"
    if setup.limited is None:
        kind, plays = "", printable(warband.name)
    else:
        kind = f", Limited {printable(setup.limited.format)}"
        plays = "a warband you build from your pool"
    return (
        f"the host offers: {printable(setup.map.name)}, {setup.options.turns_to_win} turns "
        f"to win{timed}{kind}; you play B with {plays}"
    )


def _offered_setup(
    record: bytes,
    identity: Identity,
    host_key: bytes,
    warband: Warband,
    nonce: bytes,
    host_name: str,
) -> codec.OfferBody:
    """The host's OFFER, checked: written by the key the channel
    authenticated (``host_key``), made to this key, with this side's fresh ``nonce`` in
    its game id, this warband as B, and the name the host said in HELLO (``host_name``).
    (The game a host names in HELLO may be an OFFER nobody accepted, which it replaces
    with a new one for this joiner.)"""
    try:
        _, entry = codec.decode_signed_entry(record)
    except DbnetError as exc:
        raise GameSessionError(f"the host's OFFER is malformed: {exc}") from exc
    body = entry.body
    if not isinstance(body, codec.OfferBody):
        raise GameSessionError(f"the host's first entry is {entry.kind.name}, not an OFFER")
    if body.keys[0] != host_key:
        raise GameSessionError(
            f"the OFFER names {fingerprint(body.keys[0])} as A, but the host on this "
            f"connection is {fingerprint(host_key)}: refusing a game relayed from another "
            "player (a man in the middle)",
            to_peer="your OFFER is written by another key than yours",
        )
    if body.keys[1] != identity.public_key:
        raise GameSessionError("the host's OFFER is made to another player's key")
    if body.joiner_nonce != nonce:
        raise GameSessionError(
            "the host's OFFER does not carry the nonce this side sent: refusing it (a game "
            "id this side did not help choose could repeat an earlier game's dice)",
            to_peer="your OFFER does not carry my nonce",
        )
    if body.rules != RULES_VERSION:
        raise GameSessionError(f"the host plays rules {body.rules!r}; this is {RULES_VERSION!r}")
    if body.setup.warbands[1] != _warband_in(body.setup.limited, warband):
        raise GameSessionError("the host's OFFER does not give you your own warband")
    _check_signed_name(body, host_name)
    return body


def _decoded(record: bytes) -> tuple[codec.SignedEntry, codec.Entry] | None:
    """``record`` decoded, or None when it does not decode (the log then refuses it as
    malformed)."""
    try:
        return codec.decode_signed_entry(record)
    except DbnetError:
        return None


def _check_signed_name(body: codec.Body, said: str) -> None:
    """Refuse a genesis entry (OFFER or ACCEPT) that signs another name than the one its
    author ``said`` in HELLO: the name the replay keeps is the one the player is known by
    here. Any other entry is left to the log to judge."""
    if isinstance(body, codec.OfferBody | codec.AcceptBody) and body.name not in (None, said):
        raise GameSessionError(
            f"the peer said its name is {printable(said)!r} but signs {printable(body.name)!r} "
            f"in its {'OFFER' if isinstance(body, codec.OfferBody) else 'ACCEPT'}: refusing it",
            to_peer="the name you sign is not the name you said in HELLO",
        )


def _admit(
    gate: Gate, nursery: trio.Nursery, stream: trio.abc.Stream, where: str, path: str
) -> None:
    gate.admit(stream, where, nursery, path)


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


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True
