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

This module keeps the connections: hosting, joining, reconnecting, moving to another
path, and the player's task. ``GameSession`` inherits the steps of each connection
from modules of their own: HELLO, the checks, the OFFER and ACCEPT (steps 2 and 3)
from ``dbnet.net.greeting``, the game over the connection (steps 4 and 5) from
``dbnet.net.playing``. A new game's terms are in ``dbnet.net.offer_terms``, the
session's values (``LocalPlayer``, ``NewGame``, its errors and outcomes) in
``dbnet.net.session_values``; this module re-exports those its importers use.

All game rules live in ``dbnet.protocol``; this module moves bytes and keeps time.
"""

from __future__ import annotations

import functools
import math
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final, TypeVar

import trio

from dbnet.engine import Player, format_choice
from dbnet.errors import DbnetError
from dbnet.match.driver import Driver
from dbnet.match.seats import PeerSeat, Seat
from dbnet.match.story import Narrator
from dbnet.net.chat import ChatRoom
from dbnet.net.clocks import SessionClocks, clock_claim_result
from dbnet.net.errors import NetError, VersionMismatchError, WrongHostError
from dbnet.net.gate import Gate
from dbnet.net.handshake import HOST, JOINER, PUNCH_VERSION
from dbnet.net.holepunch import PunchDoor
from dbnet.net.link import FloodError, Link, Timing
from dbnet.net.messages import MessageError, Punch
from dbnet.net.playing import Playing
from dbnet.net.rematch import Rematch
from dbnet.net.rendezvous import Door
from dbnet.net.reverse import Candidates as OwnCandidates
from dbnet.net.reverse import send_candidates
from dbnet.net.session_values import (
    RESIGN,
    RESUME_NEEDS_INVITE,
    SEAT_NEEDS_INVITE,
    Chooser,
    GameSessionError,
    LocalPlayer,
    NewGame,
    Outcome,
    PeerLeftError,
    _AdjournedError,
    _ConnectionLostError,
    _Exchange,
    _nursery,
    _Signal,
    disk_full_advice,
    restore_game,
    resume_command,
    seat_narrator,
    withheld_result,
)
from dbnet.net.spectators import Spectating, Spectators
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.errors import InvalidEntryError, ProtocolError
from dbnet.protocol.identity import fingerprint
from dbnet.protocol.remote import EquivocationError, RemoteGame
from dbnet.replay.evidence import save_evidence
from dbnet.replay.file import ReplayWriter
from dbnet.text import os_error_words, printable

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
    "restore_game",
    "resume_command",
    "seat_narrator",
    "withheld_result",
]

ARRIVALS_QUEUED: Final = 8
"""Connections the host keeps waiting while it serves one; more are closed at once."""


_T = TypeVar("_T")


class GameSession(Playing):
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
        spectators.punch_door = self.punch_door
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


SWITCH_LINGER: Final = 2.0
"""Seconds a connection the game moved away from stays open (unread) before it is
closed: the peer's move to the new one is then done."""


async def _close_later(link: Link) -> None:
    try:
        await trio.sleep(SWITCH_LINGER)
    finally:
        with trio.CancelScope(shield=True):
            await link.close()


def _admit(
    gate: Gate, nursery: trio.Nursery, stream: trio.abc.Stream, where: str, path: str
) -> None:
    gate.admit(stream, where, nursery, path)


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_task()
    except RuntimeError:
        return False
    return True
