"""The game over one connection of a network game (``dbnet.net.session``), steps 4 and
5 of docs/network.md: the send and receive loops, the players' chat, the watch on a
peer that stalls, the rematch after the game, and the moves of a relayed game to a
path the host dials back (``dbnet.net.reverse``) or both sides punch
(``dbnet.net.holepunch``)."""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING

import trio

from dbnet.engine import ChanceRequest, Player
from dbnet.errors import DbnetError
from dbnet.match.driver import Driver
from dbnet.net.chat import ChatRoom
from dbnet.net.errors import NetError
from dbnet.net.greeting import Greeting
from dbnet.net.holepunch import PunchDoor, start_punch
from dbnet.net.link import Link
from dbnet.net.messages import (
    Bye,
    Candidates,
    Chat,
    Entry,
    Hello,
    Message,
    Ping,
    Pong,
    Punch,
    RematchMessage,
    encode_message,
)
from dbnet.net.offer_terms import _check_signed_name
from dbnet.net.rematch import Rematch, RematchError, ask_player
from dbnet.net.reverse import try_candidates
from dbnet.net.session_values import (
    GameSessionError,
    PeerLeftError,
    _AdjournedError,
    _ConnectionLostError,
    _Exchange,
    _nursery,
)
from dbnet.net.stream import RELAY, SecureStream
from dbnet.protocol.log import Status
from dbnet.protocol.remote import RemoteGame
from dbnet.text import printable
from dbnet.wire.entries import Entry as WireEntry
from dbnet.wire.entries import SignedEntry, decode_signed_entry


class Playing(Greeting):
    """The game of a ``GameSession`` over one connection, once HELLO is done: the
    session's attributes these methods use are set by ``GameSession.__init__``."""

    chat: ChatRoom
    rematch: Rematch
    punch_door: PunchDoor | None
    _last_contact: float
    _punches: tuple[Link, trio.MemorySendChannel[Punch]] | None
    _tasks: trio.Nursery | None
    _dialled: Link | None

    if TYPE_CHECKING:

        def switch_to(self, stream: SecureStream) -> None: ...  # GameSession's

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
            else:
                await self._aside(link, message)

    async def _aside(self, link: Link, message: Message) -> None:
        """A message beside the game's, from HELLO on (the OFFER may come after it): a
        joiner's candidates, a PUNCH, PING and PONG, and any other is dropped; each is
        charged to the connection's budget."""
        link.charge()
        if isinstance(message, Candidates):
            self._dial_back(link, message)
        elif isinstance(message, Punch):
            self._punched(link, message)
        elif isinstance(message, Ping):
            await link.send(Pong(message.token))
        elif isinstance(message, Pong):
            self.clocks.pong(link, message.token)

    def _start_punch(self, link: Link, nursery: trio.Nursery) -> None:
        """Try to move the game from the relay to a punched path (``dbnet.net.punch``),
        once per relayed connection, when this side has punching sockets."""
        door = self.punch_door
        if door is None:
            return
        identity = self.player.identity
        self._punches = (
            link,
            start_punch(nursery, link, door, identity, self.timing, self.switch_to),
        )

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


def _decoded(record: bytes) -> tuple[SignedEntry, WireEntry] | None:
    """``record`` decoded, or None when it does not decode (the log then refuses it as
    malformed)."""
    try:
        return decode_signed_entry(record)
    except DbnetError:
        return None
