"""A game over the network: connections, liveness, reconnection (the thin trio layer).

``GameSession`` plays one game over as many connections as it takes. Each
connection runs the same steps (docs/network.md):

1. the handshake (``open_channel``): an encrypted channel with the peer's key;
2. HELLO both ways: names, the game (if any) and how many of its entries each
   side holds; the peer's key is checked against the game's, the known-peers
   file (a changed key is refused) and ``--expect``;
3. for a new game, the host (A) writes the OFFER with the joiner's warband and
   the joiner (B) accepts it; then each side resends the entries the other
   lacks, which the other drops if it holds them already;
4. the game: whoever owes the next entry writes it, saves it to the replay file
   (appended and fsynced) and sends it; the other checks and saves it. A PING
   goes out after ``ping_after`` seconds without sending; a peer silent for
   ``dead_after`` seconds is taken for gone (this catches half-open connections);
5. when the log is complete, each side says BYE (done) and both close.

A broken connection (closed, timed out, corrupted) ends step 4 with nothing
lost: the host listens again, the joiner reconnects with backoff, and step 3's
resend resumes the game. After ``adjourn_after`` seconds without the peer, the
game is adjourned: ``dbnet resume FILE`` goes on with it later, or records a
signed timeout claim. Misbehaviour (an invalid entry, equivocation, a changed
key) ends the game session with an error instead.

All game rules live in ``dbnet.protocol``; this module moves bytes and keeps time.
"""

from __future__ import annotations

import enum
import math
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import trio

from dbnet import codec
from dbnet.engine import Game, GameSetup, MapDef, Options, Player, Warband
from dbnet.errors import DbnetError, KnownPeerMismatchError
from dbnet.identity import Identity, KnownPeers, fingerprint
from dbnet.localplay import Event, Narrator, default_replay_path, now_utc, start_replay
from dbnet.net.errors import NetError
from dbnet.net.messages import (
    Bye,
    Entry,
    Hello,
    Message,
    Ping,
    Pong,
    decode_message,
    encode_message,
)
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.errors import InvalidEntryError, ProtocolError
from dbnet.protocol.peer import RULES_VERSION
from dbnet.protocol.remote import RemoteGame
from dbnet.replay.file import ReplayWriter

PING_AFTER = 5.0
DEAD_AFTER = 20.0
ADJOURN_AFTER = 300.0
HELLO_TIMEOUT = 10.0
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds between reconnection attempts (the last one repeats)."""

RESIGN = "resign"
"""What a chooser returns to resign instead of deciding."""

Chooser = Callable[[Game], Awaitable[str]]
"""Given this player's view of the game, a decision in notation (or ``RESIGN``)."""


class GameSessionError(DbnetError):
    """The game cannot go on with this peer: misbehaviour, a refused key, a wrong game."""


class PeerLeftError(GameSessionError):
    """The peer ended the session with a reason (BYE before the game was complete)."""


class Outcome(enum.Enum):
    COMPLETE = "complete"  # the log is complete on both sides
    ADJOURNED = "adjourned"  # the peer stayed away too long; resume later


class _ConnectionLostError(Exception):
    """This connection is over; the game is not (a reconnection resumes it)."""


@dataclass
class Timing:
    """The session's clocks, in seconds (tests shorten them)."""

    ping_after: float = PING_AFTER
    dead_after: float = DEAD_AFTER
    adjourn_after: float = ADJOURN_AFTER
    hello_timeout: float = HELLO_TIMEOUT
    handshake_timeout: float = 10.0
    frame_timeout: float = 10.0
    backoff: tuple[float, ...] = BACKOFF


@dataclass
class NewGame:
    """What this side brings to a game not started yet."""

    warband: Warband
    options: Options = field(default_factory=Options)
    game_map: MapDef | None = None  # the host's map; None: the standard one
    nonce: bytes | None = None  # the host's game nonce; None: a random one


@dataclass
class Seat:
    """This side of the game: who plays here and how they choose."""

    identity: Identity
    name: str
    choose: Chooser
    say: Callable[[str], None]
    known_peers: KnownPeers | None = None
    expect: str | None = None  # the peer's fingerprint, compared out of band
    on_events: Callable[[list[Event]], None] | None = None


class GameSession:
    """One game with one peer, over as many connections as it takes."""

    def __init__(
        self,
        seat: Seat,
        *,
        game: RemoteGame | None = None,
        writer: ReplayWriter | None = None,
        new_game: NewGame | None = None,
        replay_path: Path | None = None,
        timing: Timing | None = None,
    ) -> None:
        if (game is None) == (new_game is None):
            raise ValueError("give either a game to resume or a new game's warband")
        self.seat = seat
        self.game = game
        self.writer = writer
        self.new_game = new_game
        self.replay_path = replay_path
        self.timing = timing or Timing()
        self.narrator: Narrator | None = None
        self._told = 0  # entries the narrator has told
        self._initiator = False  # whether this side opened the current connection
        self.peer_name: str | None = None
        self.connected = False
        self._last_contact = trio.current_time() if _in_trio() else 0.0
        if game is not None:
            self._start_narrator(game)

    # --- the outer loops --------------------------------------------------------------

    async def host(self, listeners: list[trio.SocketListener]) -> Outcome:
        """Serve the game on ``listeners`` (this side answers the handshake) until it is
        complete or adjourned; one connection at a time."""
        incoming, arrivals = trio.open_memory_channel[trio.abc.Stream](math.inf)
        async with _nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(_accept_into, listener, incoming)
            outcome = await self.serve(arrivals)
            nursery.cancel_scope.cancel()
        return outcome

    async def serve(self, arrivals: trio.MemoryReceiveChannel[trio.abc.Stream]) -> Outcome:
        """Take connections from ``arrivals`` (this side answers the handshake) until the
        game is complete or adjourned; ``host`` feeds it from TCP listeners."""
        self._last_contact = trio.current_time()
        while True:
            stream = await self._next_arrival(arrivals)
            if stream is None:
                return Outcome.ADJOURNED
            if await self._connection(stream, initiator=False):
                return Outcome.COMPLETE

    async def join(self, connect: Callable[[], Awaitable[trio.abc.Stream]]) -> Outcome:
        """Connect with ``connect`` (this side starts the handshake), reconnecting with
        backoff, until the game is complete or adjourned."""
        self._last_contact = trio.current_time()
        attempt = 0
        while True:
            try:
                stream = await connect()
            except OSError as exc:
                if self._adjourn_due():
                    return Outcome.ADJOURNED
                delay = self.timing.backoff[min(attempt, len(self.timing.backoff) - 1)]
                attempt += 1
                self.seat.say(
                    f"cannot reach the host ({_why_unreachable(exc)}); retrying in {delay:g} s"
                )
                await trio.sleep(delay)
                continue
            attempt = 0
            if await self._connection(stream, initiator=True):
                return Outcome.COMPLETE
            if self._adjourn_due():
                return Outcome.ADJOURNED
            await trio.sleep(self.timing.backoff[0])

    async def _next_arrival(
        self, arrivals: trio.MemoryReceiveChannel[trio.abc.Stream]
    ) -> trio.abc.Stream | None:
        deadline = self._last_contact + self.timing.adjourn_after
        with trio.move_on_at(deadline):
            return await arrivals.receive()
        return None

    def _adjourn_due(self) -> bool:
        return trio.current_time() >= self._last_contact + self.timing.adjourn_after

    # --- one connection ---------------------------------------------------------------

    async def _connection(self, stream: trio.abc.Stream, *, initiator: bool) -> bool:
        """Play over one connection: True when the game is complete on both sides,
        False when the connection was lost (GameSessionError: the game cannot go on)."""
        self._initiator = initiator
        try:
            secure = await open_channel(
                stream,
                self.seat.identity,
                initiator=initiator,
                handshake_timeout=self.timing.handshake_timeout,
                frame_timeout=self.timing.frame_timeout,
            )
        except NetError as exc:
            self.seat.say(f"connection failed: {exc}")
            return False
        link = _Link(secure, self.timing)
        try:
            try:
                return await self._converse(link)
            except GameSessionError as exc:
                await link.say_bye(str(exc))
                raise
            except (InvalidEntryError, ProtocolError) as exc:
                await link.say_bye(f"your entry was refused: {exc}")
                raise GameSessionError(f"the peer sent an invalid entry: {exc}") from exc
        except (_ConnectionLostError, NetError) as exc:
            if self.connected:
                self.seat.say(f"connection lost ({_reason(exc)}); waiting to reconnect")
            return False
        finally:
            self.connected = False
            await link.close()

    async def _converse(self, link: _Link) -> bool:
        hello = await self._exchange_hellos(link)
        self._last_contact = trio.current_time()
        self.connected = True
        self.seat.say(f"connected to {hello.name} ({fingerprint(link.stream.peer_key)})")
        game = await self._ensure_game(link, hello)
        for record in game.missing_for(hello.have):
            await link.send(Entry(record))
        return await self._play(link, game)

    async def _exchange_hellos(self, link: _Link) -> Hello:
        game = self.game
        ours = Hello(
            name=self.seat.name,
            game_id=None if game is None else game.game_id,
            have=0 if game is None else len(game.records),
            warband=self._joiner_warband(),
        )
        await link.send(ours)
        with trio.move_on_after(self.timing.hello_timeout) as scope:
            message = await link.receive()
        if scope.cancelled_caught:
            raise _ConnectionLostError("no HELLO from the peer in time")
        if not isinstance(message, Hello):
            raise GameSessionError(f"the peer's first message is not HELLO but {message!r}")
        self._check_peer(link.stream.peer_key, message)
        return message

    def _joiner_warband(self) -> Warband | None:
        """The warband to send in HELLO: a new game's joiner (the initiator) sends it."""
        if self.game is None and self.new_game is not None and self._initiator:
            return self.new_game.warband
        return None

    def _check_peer(self, key: bytes, hello: Hello) -> None:
        seat = self.seat
        print_key = fingerprint(key)
        if seat.expect is not None and _normal(seat.expect) != _normal(print_key):
            raise GameSessionError(
                f"the peer's key fingerprint is {print_key}, not the expected {seat.expect}: "
                "refusing to play (check the fingerprint with your opponent)"
            )
        game = self.game
        if game is not None:
            other = game.log.keys[game.me.other]
            if key != other:
                raise GameSessionError(
                    f"the peer ({print_key}) is not the other player of this game "
                    f"({fingerprint(other)})"
                )
            if hello.game_id is not None and hello.game_id != game.game_id:
                raise GameSessionError(
                    "the peer is resuming another game (its game id differs from ours)"
                )
        if seat.known_peers is not None:
            try:
                if seat.known_peers.check(hello.name, key) == "new":
                    seat.known_peers.remember(hello.name, key)
                    seat.say(f"first game with {hello.name}: key {print_key} remembered")
            except KnownPeerMismatchError as exc:
                raise GameSessionError(str(exc)) from exc
        self.peer_name = hello.name

    async def _ensure_game(self, link: _Link, hello: Hello) -> RemoteGame:
        if self.game is not None:
            return self.game
        assert self.new_game is not None
        if hello.game_id is not None:
            raise GameSessionError("the peer is resuming a game, but this side starts a new one")
        if not self._initiator:
            if hello.warband is None:
                raise GameSessionError("the peer sent no warband: it is not joining a new game")
            return self._offer(link.stream.peer_key, hello.warband)
        if hello.warband is not None:
            raise GameSessionError("the host sent a warband: both sides are trying to join")
        return await self._accept(link)

    def _offer(self, peer_key: bytes, their_warband: Warband) -> RemoteGame:
        new = self.new_game
        assert new is not None
        from dbnet.catalog import load_map

        game_map = new.game_map if new.game_map is not None else load_map()
        setup = GameSetup(game_map, (new.warband, their_warband), options=new.options)
        nonce = new.nonce if new.nonce is not None else secrets.token_bytes(32)
        holder: list[bytes] = []
        game = RemoteGame.offer(self.seat.identity, peer_key, setup, holder.append, nonce=nonce)
        self._open_replay(game, holder)
        return game

    async def _accept(self, link: _Link) -> RemoteGame:
        new = self.new_game
        assert new is not None
        with trio.move_on_after(self.timing.hello_timeout) as scope:
            message = await link.receive()
        if scope.cancelled_caught:
            raise _ConnectionLostError("no OFFER from the host in time")
        if not isinstance(message, Entry):
            raise GameSessionError(f"expected the host's OFFER, got {message!r}")
        setup = _offered_setup(message.record, self.seat.identity, new.warband)
        holder: list[bytes] = []
        game = RemoteGame.accept(self.seat.identity, message.record, holder.append)
        self.seat.say(
            f"the host offers: {setup.map.name}, {setup.options.turns_to_win} turns to win; "
            f"you play B with {new.warband.name}"
        )
        self._open_replay(game, holder)
        return game

    def _open_replay(self, game: RemoteGame, saved: list[bytes]) -> None:
        """Create the replay file of a new game and write its first records to it."""
        log = game.log
        created = now_utc()
        header = codec.ReplayHeader(
            rules=log.rules,
            game_id=log.game_id,
            keys=log.keys,
            created=created.isoformat().replace("+00:00", "Z"),
        )
        path = self.replay_path or default_replay_path(log.game_id, created)
        writer = start_replay(path, header)
        for record in saved:
            writer.append(record)
        game.save = writer.append
        self.writer = writer
        self.replay_path = path
        self.game = game
        self.seat.say(f"replay: {path}")
        self._start_narrator(game)

    def _start_narrator(self, game: RemoteGame) -> None:
        names = ("you", "peer") if game.me is Player.A else ("peer", "you")
        self.narrator = Narrator(game.log.game.setup, names)
        self._told = 0
        self._narrate(game)

    def _narrate(self, game: RemoteGame) -> None:
        narrator = self.narrator
        if narrator is None:
            return
        log = game.log
        events: list[Event] = []
        for entry in log.decoded[self._told :]:
            events += narrator.entry(entry.kind, Player(entry.author), entry.body, log.rolls)
        self._told = len(log.decoded)
        events += narrator.catch_up(game.peer)
        if events and self.seat.on_events is not None:
            self.seat.on_events(events)

    # --- the game over one connection --------------------------------------------------

    async def _play(self, link: _Link, game: RemoteGame) -> bool:
        changed = trio.Event()
        state = _PlayState()

        async def receive_loop() -> None:
            nonlocal changed
            while True:
                try:
                    message = await link.receive()
                except (NetError, _ConnectionLostError):
                    if state.peer_done and state.said_done:
                        state.peer_gone.set()  # the peer closed after the last BYE
                        return
                    raise
                self._last_contact = trio.current_time()
                if isinstance(message, Entry):
                    if game.receive(message.record):
                        self._narrate(game)
                        changed.set()
                elif isinstance(message, Ping):
                    await link.send(Pong(message.token))
                elif isinstance(message, Bye):
                    if not message.done:
                        raise PeerLeftError(f"the peer left: {message.reason}")
                    state.peer_done = True
                    changed.set()
                elif isinstance(message, Hello):
                    raise GameSessionError("the peer sent HELLO twice")

        async def act_loop() -> None:
            nonlocal changed
            while True:
                if game.is_closed:
                    if not state.said_done:
                        await link.send(Bye(True, "the game's log is complete"))
                        state.said_done = True
                    if state.peer_done:
                        # The opener closes first; the other waits for that close, so
                        # that no unread byte makes its close reset the connection and
                        # destroy the last BYE before the opener reads it.
                        if not self._initiator:
                            with trio.move_on_after(self.timing.hello_timeout):
                                await state.peer_gone.wait()
                        return
                elif game.my_turn:
                    await self._write_next(link, game)
                    continue
                await changed.wait()
                changed = trio.Event()

        async with _nursery() as nursery:
            nursery.start_soon(link.heartbeat)
            nursery.start_soon(receive_loop)
            await act_loop()
            nursery.cancel_scope.cancel()
        return True

    async def _write_next(self, link: _Link, game: RemoteGame) -> None:
        view = game.decision_view()
        held = len(game.records)
        if view is None:
            game.write()
        else:
            decision = await self.seat.choose(view)
            if len(game.records) != held or not game.my_turn:
                return  # the log moved while we thought (a claim): look again
            if decision == RESIGN:
                game.resign()
            else:
                try:
                    game.write(decision)
                except InvalidEntryError as exc:
                    self.seat.say(f"illegal: {exc.reason}")
                    return
        self._narrate(game)
        for record in game.records[held:]:
            await link.send(Entry(record))


@dataclass
class _PlayState:
    peer_done: bool = False  # the peer said BYE (done)
    said_done: bool = False  # we said BYE (done)
    peer_gone: trio.Event = field(default_factory=trio.Event)  # ...and then it closed


class _Link:
    """One connection's messages: typed sends and receives, heartbeats, dead-peer timeout."""

    def __init__(self, stream: SecureStream, timing: Timing) -> None:
        self.stream = stream
        self.timing = timing
        self._last_send = trio.current_time()
        self._tokens = 0

    async def send(self, message: Message) -> None:
        await self.stream.send(encode_message(message))
        self._last_send = trio.current_time()

    async def receive(self) -> Message:
        """The next message; _ConnectionLostError when the peer is silent for ``dead_after``."""
        with trio.move_on_after(self.timing.dead_after) as scope:
            data = await self.stream.receive()
        if scope.cancelled_caught:
            raise _ConnectionLostError(f"the peer was silent for {self.timing.dead_after:g} s")
        return decode_message(data)

    async def heartbeat(self) -> None:
        while True:
            due = self._last_send + self.timing.ping_after
            if trio.current_time() >= due:
                self._tokens += 1
                await self.send(Ping(self._tokens))
                continue
            await trio.sleep_until(due)

    async def say_bye(self, reason: str) -> None:
        with trio.move_on_after(1.0):
            with suppress(NetError):
                await self.send(Bye(False, reason[:200]))

    async def close(self) -> None:
        with trio.move_on_after(1.0):
            await self.stream.aclose()


def _offered_setup(record: bytes, identity: Identity, warband: Warband) -> GameSetup:
    """The setup of the host's OFFER, checked: made to this key, with this warband as B."""
    try:
        _, entry = codec.decode_signed_entry(record)
    except DbnetError as exc:
        raise GameSessionError(f"the host's OFFER is malformed: {exc}") from exc
    body = entry.body
    if not isinstance(body, codec.OfferBody):
        raise GameSessionError(f"the host's first entry is {entry.kind.name}, not an OFFER")
    if body.keys[1] != identity.public_key:
        raise GameSessionError("the host's OFFER is made to another player's key")
    if body.rules != RULES_VERSION:
        raise GameSessionError(f"the host plays rules {body.rules!r}; this is {RULES_VERSION!r}")
    if body.setup.warbands[1] != warband:
        raise GameSessionError("the host's OFFER does not give you your own warband")
    return body.setup


async def _accept_into(
    listener: trio.SocketListener, incoming: trio.MemorySendChannel[trio.abc.Stream]
) -> None:
    while True:
        try:
            stream = await listener.accept()
        except OSError:
            await trio.sleep(0.1)
            continue
        await incoming.send(stream)


@asynccontextmanager
async def _nursery() -> AsyncIterator[trio.Nursery]:
    """A nursery that raises its first error itself rather than in an exception group,
    so that callers can catch the session's own errors."""
    try:
        async with trio.open_nursery() as nursery:
            yield nursery
    except BaseExceptionGroup as group:
        leaves = list(_leaves(group))
        first = next((e for e in leaves if not isinstance(e, trio.Cancelled)), leaves[0])
        raise first from group


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return out


@asynccontextmanager
async def listening(port: int) -> AsyncIterator[list[trio.SocketListener]]:
    """TCP listeners on ``port`` for IPv4 and IPv6 (whatever the machine has)."""
    listeners = await trio.open_tcp_listeners(port)
    try:
        yield listeners
    finally:
        for listener in listeners:
            await listener.aclose()


def _why_unreachable(exc: OSError) -> str:
    """The first underlying reason of a failed connection (trio groups one per address)."""
    cause = exc.__cause__
    if isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        first = cause.exceptions[0]
        if isinstance(first, OSError) and first.strerror:
            return first.strerror
    return exc.strerror or str(exc)


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _normal(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True
