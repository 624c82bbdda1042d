"""The host's spectators: read-only connections that follow the game (docs/network.md,
section 11).

A spectator connects like a joiner (the same handshake, so it knows the host's key) but
sends WATCH instead of HELLO as its first message. The host reads the first message of
every authenticated connection (``Spectators.run``, side by side, at most ``PEEKING`` at
once): a WATCH goes to a spectator's place, anything else is given back to the stream
(``SecureStream.unread``) and the stream goes on to the seat, exactly as before. So
spectators never take one of the players' connection slots, and once authenticated they
are not counted among the handshakes of their address either. Spectators come directly
or through the relay (the host's second door there, with the watch secret's token:
``dbnet.commands.net_connect``); a WATCH through the relay must carry the proof of the watch
secret, as a relayed joiner must prove the player's.

What the host does for a spectator is cheap: it sends bytes it holds already. Once the
game has started (OFFER and ACCEPT signed) it sends HELLO (the game id, the replay
header's creation time, the host's proof of the spectator invite's secret), every entry
record from the start (catch-up), then each new one as the log grows, ``delay`` entries
behind the game (all of them once the log is complete), and BYE (done) at the end. The
spectator checks everything itself (``dbnet.net.watch``).

A spectator that answers BYE (done) with REMATCH (true) stays: ``finish(keep=True)``
(a rematch is agreed) keeps its connection in ``kept`` for the next game's
``Spectators``, which ``adopt`` it (a new HELLO, the new game's entries); else it is
told there is no next game.

The players are never slowed down: each spectator has a task of its own and a queue of
``SPECTATOR_QUEUE`` messages; the game only puts into the queues without waiting
(``send_nowait``), and a spectator whose queue is full has fallen behind and is dropped
with a BYE saying so. Anything a spectator sends but PING, PONG and BYE (or a flood of
those) closes its connection. After the game, spectators get ``GRACE`` seconds to
receive the rest; then every connection is closed.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import trio

from dbnet.net.errors import NetError, VersionMismatchError
from dbnet.net.handshake import CHAT_VERSION, PUNCH_VERSION
from dbnet.net.holepunch import PunchDoor, start_punch
from dbnet.net.link import FloodError, Link, PeerSilentError, Timing
from dbnet.net.messages import (
    MAX_REASON_LEN,
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
    Watch,
    decode_message,
    encode_message,
)
from dbnet.net.proof import proof, watch_proof_matches
from dbnet.net.rematch import REMATCH_VERSION
from dbnet.net.reverse import SPECTATOR_PATH, dial_back, dial_failure
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.chat import ChatLine
from dbnet.protocol.identity import Identity, fingerprint
from dbnet.text import counted, printable

__all__ = [
    "GRACE",
    "PEEKING",
    "PLACE_NEEDS_INVITE",
    "RELAY_NEEDS_INVITE",
    "SPECTATOR_QUEUE",
    "Spectating",
    "Spectators",
]

SPECTATOR_QUEUE: Final = 64
"""Messages (entries, PONGs) waiting for one spectator; one more and it has fallen behind."""
PEEKING: Final = 16
"""Authenticated connections whose first message is awaited at once; a new one drops the
oldest (as the gate does with handshakes)."""
NO_REMATCH: Final = "the players play no other game over this connection"
"""Said (BYE, not done) to a spectator that stayed when no rematch was agreed."""
RELAY_NEEDS_INVITE: Final = "the relay path needs the spectator invite: use dbnet watch INVITE"
"""The refusal of a WATCH that came through the relay without a proof of the watch
secret (whoever learned the relay token must not watch)."""
PLACE_NEEDS_INVITE: Final = (
    "this host admits only holders of its spectator invite: use dbnet watch INVITE (the "
    "line the host printed for spectators)"
)
"""The refusal of a WATCH without a proof on a direct path, by a host that is not open."""
GRACE: Final = 5.0
"""Seconds after the game for the spectators to receive the rest of it."""
GATHER: Final = 0.1
"""Seconds a spectator's task waits after an entry for the ones that follow it, to send
them in one write: the writes (and the wake-ups) are what spectators cost the host."""
BATCH: Final = 64
"""The most entries sent to a spectator in one write."""
_CLOSE_TIMEOUT: Final = 1.0
_END: Final = None  # the queue's last item: the log is complete and all of it was queued

_Item = int | Pong | Chat | None
"""What a spectator's queue holds: the sequence number of an entry to send, a PONG, a
players' chat line, or the end."""


@dataclass(frozen=True, slots=True)
class Spectating:
    """How the host admits spectators: at most ``places`` at once, ``delay`` entries behind
    the game; ``secret`` is the spectator invite's: with one, a place goes only to a WATCH
    that proves it, on every path, unless the host is ``open`` (``dbnet host --open``: a
    WATCH without a proof may then watch directly, never through the relay); ``queue`` is
    the length of each spectator's queue."""

    places: int
    delay: int = 0
    secret: bytes | None = field(default=None, repr=False)
    queue: int = SPECTATOR_QUEUE
    open: bool = False

    def __post_init__(self) -> None:
        if self.places < 0 or self.delay < 0 or self.queue < 1:
            raise ValueError("spectator places and delay are whole numbers from 0, queues from 1")


@dataclass(eq=False)
class _Spectator:
    link: Link
    name: str
    target: int  # entries to send before the queue (the catch-up), grown by ``update``
    base: int | None  # entries the game had when it came (None: not started yet)
    queue: trio.MemorySendChannel[_Item]
    inbox: trio.MemoryReceiveChannel[_Item]
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    sent: int = 0
    chat_sent: int = 0  # the players' chat lines sent (or skipped: an older spectator)
    live: bool = False  # caught up: new entries come through the queue
    ending: bool = False  # it has been sent BYE (done)
    dropped: str | None = None  # why the host dropped it (said to it in BYE)
    quiet: bool = False  # ...and whether that needs no BYE (it left, or the link broke)
    gone: trio.Event = field(default_factory=trio.Event)  # it closed its end
    hurry: trio.Event = field(default_factory=trio.Event)  # its queue is half full
    dialled: bool = False  # its candidates were tried (net.reverse): once at most
    stays: bool = False  # it sent REMATCH (true) after BYE (done): it stays for a rematch
    kept: bool = False  # ...and one was agreed: its connection goes on to the next game
    punches: trio.MemorySendChannel[Punch] | None = None  # its PUNCH, to the attempt


@dataclass
class _Game:
    records: Sequence[bytes]
    game_id: bytes
    created: str


class Spectators:
    """The host's spectators of one game: ``run`` sorts the arrivals, ``update`` follows
    the game's records, ``finish`` lets the spectators have the end and closes them."""

    def __init__(
        self,
        rules: Spectating,
        identity: Identity,
        name: str,
        say: Callable[[str], None],
        timing: Timing,
    ) -> None:
        self.rules = rules
        self.identity = identity
        self.name = name
        self.say = say
        self.timing = timing
        self.admitted = 0
        """Spectators admitted so far (all connections)."""
        self.dropped = 0
        """Spectators dropped by the host: fallen behind, or sending what they may not."""
        self.refused = 0
        """WATCHes refused: no place left, a wrong proof, the game over."""
        self._members: set[_Spectator] = set()
        self._game: _Game | None = None
        self._started = trio.Event()
        self._visible = 0  # entries the spectators may see
        self._chat: list[ChatLine] = []  # the players' chat lines, in the order said
        self._closed = False  # the log is complete and every spectator may see all of it
        self._empty = trio.Event()
        self._peeking: deque[trio.CancelScope] = deque()
        self._nursery: trio.Nursery | None = None  # run's: the spectators' connections
        self._staying: set[_Spectator] = set()  # waiting to know whether a rematch comes
        self._decided = trio.Event()
        self._keep = False
        self.kept: list[tuple[SecureStream, str]] = []
        """The spectators that stay for the rematch agreed (``finish(keep=True)``)."""
        self.punch_door: PunchDoor | None = None
        """The host's punching sockets (``dbnet.net.holepunch``): a spectator on the relay
        moves to a path punched to it, as the players' game does; None: it stays."""

    @property
    def watching(self) -> int:
        """Spectators connected now."""
        return len(self._members)

    # --- following the game -------------------------------------------------------------

    def update(
        self, records: Sequence[bytes], *, closed: bool, game_id: bytes, created: str
    ) -> None:
        """The game's records now (the host's own list, appended to and never changed) and
        whether its log is complete. Never waits: a spectator whose queue is full is
        dropped."""
        if len(records) < 2:
            return  # not started: the OFFER may still give way to another one
        if self._game is None:
            self._game = _Game(records, game_id, created)
            self._started.set()
        self._game.records = records
        visible = len(records) if closed else max(len(records) - self.rules.delay, 0)
        visible = max(visible, self._visible)
        end = closed and not self._closed
        for member in list(self._members):
            if not member.live:
                # Still catching up: it reads the list itself, and falls behind when more
                # than a queue's worth of entries came since it did.
                member.target = visible
                base = member.base = visible if member.base is None else member.base
                if visible - max(member.sent, base) > self.rules.queue:
                    self._drop(member, self._behind())
                continue
            for seq in range(self._visible, visible):
                self._put(member, seq)
            self._release(member, visible)
            if end:
                self._put(member, _END)
        self._visible = visible
        self._closed = self._closed or closed

    def chat(self, line: ChatLine) -> None:
        """A players' chat line (checked): each spectator gets it once it sees the entries
        its sender's log held when it was said (the spectator delay holds it back too)."""
        self._chat.append(line)
        for member in list(self._members):
            if member.live:
                self._release(member, self._visible)

    def _release(self, member: _Spectator, visible: int) -> None:
        """Queue the chat lines ``member`` may see now (in order: a line held back holds
        back the ones said after it); a spectator of channel version 3 gets none."""
        if member.link.stream.version < CHAT_VERSION:
            return
        while member.chat_sent < len(self._chat) and self._chat[member.chat_sent].at <= visible:
            self._put(member, Chat(self._chat[member.chat_sent]))
            member.chat_sent += 1

    def _put(self, member: _Spectator, item: _Item) -> None:
        if member.dropped is not None:
            return
        try:
            member.queue.send_nowait(item)
        except trio.WouldBlock:
            self._drop(member, self._behind())
            return
        if member.queue.statistics().current_buffer_used * 2 >= self.rules.queue:
            member.hurry.set()  # no more gathering: send what is there

    def _behind(self) -> str:
        return f"you fell behind the game ({self.rules.queue} messages waiting): dropped"

    def _drop(self, member: _Spectator, reason: str, *, quiet: bool = False) -> None:
        if member.dropped is None:
            member.dropped, member.quiet = reason, quiet
        member.scope.cancel()

    async def finish(self, why: str, *, keep: bool = False) -> None:
        """Once the log is complete (``update`` says so), give the spectators ``GRACE``
        seconds to receive the rest of it; then close every connection, telling those
        still there ``why`` when the log is not complete (the game was adjourned). With
        ``keep`` (a rematch is agreed) the spectators that stay are kept in ``kept``."""
        if self._closed:
            with trio.move_on_after(GRACE):
                while self._members:
                    await self._empty.wait()
        self._keep = keep and self._closed
        self._decided.set()
        with trio.move_on_after(GRACE):
            while self._staying:
                await trio.sleep(0.05)
        for member in list(self._members):
            self._drop(member, why, quiet=self._closed)
        for scope in self._peeking:
            scope.cancel()
        while self._members:  # each says goodbye (at most a second) and closes
            await self._empty.wait()

    # --- the arrivals -------------------------------------------------------------------

    async def run(
        self,
        arrivals: trio.MemoryReceiveChannel[trio.abc.Stream]
        | trio.MemoryReceiveChannel[trio.abc.Stream | SecureStream],
        seats: trio.MemorySendChannel[SecureStream],
    ) -> None:
        """Take connections from ``arrivals`` for ever (authenticating those that have not
        done the handshake yet), read the first message of each: spectators are served
        here, the others go to ``seats`` with that message given back."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            async for stream in arrivals:
                if len(self._peeking) >= PEEKING:
                    self._peeking.popleft().cancel()
                scope = trio.CancelScope()
                self._peeking.append(scope)
                nursery.start_soon(self._sort, stream, seats, scope)

    async def _sort(
        self,
        stream: trio.abc.Stream | SecureStream,
        seats: trio.MemorySendChannel[SecureStream],
        scope: trio.CancelScope,
    ) -> None:
        secure: SecureStream | None = None
        data: bytes | None = None
        try:
            with scope:
                try:
                    if isinstance(stream, SecureStream):
                        secure = stream
                    else:
                        secure = await self._open(stream)
                    with trio.fail_after(self.timing.hello_timeout):
                        data = await secure.receive()
                except VersionMismatchError as exc:
                    self.say(f"refused a connection: {printable(str(exc))}")
                except NetError as exc:
                    self.say(f"connection failed: {printable(str(exc))}")
                except trio.TooSlowError:
                    self.say("connection failed: no HELLO or WATCH from the peer in time")
        finally:
            if scope in self._peeking:
                self._peeking.remove(scope)
            if secure is None or data is None:  # failed, dropped for a newer one, or cancelled
                await trio.aclose_forcefully(secure or stream)
        if secure is None or data is None:
            return
        try:
            message: Message | None = decode_message(data)
        except MessageError:
            message = None  # the seat's session says what is wrong with it
        if isinstance(message, Watch):
            await self._spectate(secure, message)  # it closes the stream
            return
        secure.unread(data)
        try:
            seats.send_nowait(secure)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            await trio.aclose_forcefully(secure)

    async def _open(self, stream: trio.abc.Stream) -> SecureStream:
        return await open_channel(
            stream,
            self.identity,
            initiator=False,
            handshake_timeout=self.timing.handshake_timeout,
            frame_timeout=self.timing.frame_timeout,
        )

    # --- one spectator ------------------------------------------------------------------

    def _refusal(self, secure: SecureStream, watch: Watch) -> str | None:
        """Why this WATCH is refused (said to it in BYE), or None."""
        secret = self.rules.secret
        if self._closed:
            return "the game is over: there is nothing left to watch"
        if watch.proof is None and secure.path == RELAY:
            return RELAY_NEEDS_INVITE
        if watch.proof is None and secret is not None and not self.rules.open:
            return PLACE_NEEDS_INVITE
        if watch.proof is not None and (
            secret is None or not watch_proof_matches(secret, secure.transcript, watch.proof)
        ):
            return "your proof of the spectator invite's secret is wrong: ask for a fresh invite"
        if len(self._members) >= self.rules.places:
            return (
                f"the game is full: this host admits {counted(self.rules.places, 'spectator')}"
                + (
                    " and its place is taken"
                    if self.rules.places == 1
                    else " and all their places are taken"
                )
            )
        return None

    async def _spectate(self, secure: SecureStream, watch: Watch) -> None:
        who = f"{printable(watch.name)} ({fingerprint(secure.peer_key)})"
        refusal = self._refusal(secure, watch)
        if refusal is not None:
            self.refused += 1
            self.say(f"refused a spectator, {who}: {refusal}")
            with trio.CancelScope(shield=True):
                await _bye(secure, Bye(False, refusal))
                await trio.aclose_forcefully(secure)
            return
        await self.adopt(secure, watch.name)

    async def adopt(self, secure: SecureStream, name: str) -> None:
        """Serve an admitted spectator (one that WATCHed, or one kept from the last game
        of a series: it is sent this game's HELLO, as at its start) until it leaves."""
        who = f"{printable(name)} ({fingerprint(secure.peer_key)})"
        queue, inbox = trio.open_memory_channel[_Item](self.rules.queue)
        base = None if self._game is None else self._visible
        link = Link(secure, self.timing)
        member = _Spectator(link, name, self._visible, base, queue, inbox)
        self._members.add(member)
        self._empty = trio.Event()
        self.admitted += 1
        self.say(
            f"spectator {who} is watching via {secure.path} ({len(self._members)} of "
            f"{self.rules.places})"
        )
        try:
            with member.scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._listen, member)
                    self._start_punch(member)
                    await self._serve(member)
                    nursery.cancel_scope.cancel()
        finally:
            self._members.discard(member)
            self._staying.discard(member)
            if not self._members:
                self._empty.set()
            with trio.CancelScope(shield=True):
                await self._leave(secure, member, who)

    async def _leave(self, secure: SecureStream, member: _Spectator, who: str) -> None:
        if member.kept:
            self.kept.append((secure, member.name))
            return
        if member.dropped is not None and not member.quiet:
            self.dropped += 1
            self.say(f"dropped the spectator {who}: {printable(member.dropped)}")
            await _bye(secure, Bye(False, member.dropped[:MAX_REASON_LEN]))
        await trio.aclose_forcefully(secure)

    async def _serve(self, member: _Spectator) -> None:
        try:
            await self._feed(member)
        except trio.TooSlowError:
            seconds = self.timing.dead_after
            self._drop(member, f"you did not read the game for {seconds:g} s: dropped")
        except NetError as exc:
            self._drop(member, f"the connection broke: {exc}", quiet=True)

    async def _feed(self, member: _Spectator) -> None:
        """Send the spectator the game: HELLO once it has started, the entries it lacks
        (the catch-up from the list), then what the queue brings, PINGs when idle, and
        BYE (done) after the last entry."""
        link, timing = member.link, self.timing
        while not self._started.is_set():
            with trio.move_on_after(timing.ping_after):
                await self._started.wait()
            if not self._started.is_set():
                await _send(link, Ping(0), timing.dead_after)
        game = self._game
        assert game is not None
        secret = self.rules.secret
        await _send(
            link,
            Hello(
                self.name,
                game.game_id,
                self._visible,
                created=game.created,
                proof=(
                    None if secret is None else proof(secret, link.stream.transcript, joiner=False)
                ),
            ),
            timing.dead_after,
        )
        while member.sent < member.target:
            end = min(member.target, member.sent + BATCH)
            await _send_all(link, [Entry(r) for r in game.records[member.sent : end]], timing)
            member.sent = end
        if self._closed:  # caught up with a complete log
            await self._end(member)
            return
        member.live = True
        self._release(member, self._visible)
        while True:
            first: _Item | Ping = Ping(0)
            with trio.move_on_after(timing.ping_after):
                first = await member.inbox.receive()
            items = [first]
            if isinstance(first, int):
                with trio.move_on_after(GATHER):  # the entries of this burst come meanwhile
                    await member.hurry.wait()
                member.hurry = trio.Event()
                while len(items) < BATCH:
                    try:
                        items.append(member.inbox.receive_nowait())
                    except trio.WouldBlock:
                        break
            ended = _END in items
            messages = [
                Entry(game.records[item]) if isinstance(item, int) else item
                for item in items
                if item is not _END
            ]
            member.sent = max([member.sent, *(i + 1 for i in items if isinstance(i, int))])
            await _send_all(link, messages, timing)
            if ended:
                await self._end(member)
                return

    async def _end(self, member: _Spectator) -> None:
        """BYE (done), then wait for the spectator to close first (at most
        ``hello_timeout``), so that no unread byte turns our close into a reset that
        destroys the BYE."""
        member.ending = True
        await _send(member.link, Bye(True, "the game's log is complete"), self.timing.dead_after)
        with trio.move_on_after(self.timing.hello_timeout):
            await member.gone.wait()
        if member.stays and member.dropped is None:
            await self._stay(member)

    async def _stay(self, member: _Spectator) -> None:
        """Hold a spectator that stays until ``finish`` says whether a rematch comes: kept
        for it, or told there is none (BYE, not done) and closed."""
        self._members.discard(member)
        self._staying.add(member)
        if not self._members:
            self._empty.set()
        while not self._decided.is_set():
            with trio.move_on_after(self.timing.ping_after):
                await self._decided.wait()
            pongs: list[Message] = []
            while True:
                try:
                    item = member.inbox.receive_nowait()
                except trio.WouldBlock:
                    break
                if isinstance(item, Pong):
                    pongs.append(item)
            await _send_all(member.link, pongs or [Ping(0)], self.timing)
        if self._keep:
            member.kept = True
        else:
            await _send(member.link, Bye(False, NO_REMATCH), self.timing.dead_after)

    async def _listen(self, member: _Spectator) -> None:
        """What the spectator sends: PINGs (answered through its queue), PONGs and BYE;
        anything else, or a flood, drops it."""
        link = member.link
        while True:
            try:
                message = await link.receive()
            except MessageError as exc:
                self._drop(member, f"a spectator may send only PING, PONG and BYE: {exc}")
                return
            except PeerSilentError as exc:
                member.gone.set()
                self._drop(member, f"{exc}: dropped")
                return
            except NetError as exc:
                member.gone.set()
                if not member.ending:
                    self._drop(member, f"the connection broke: {exc}", quiet=True)
                return
            if (
                isinstance(message, RematchMessage)
                and message.want
                and member.ending
                and not member.stays
                and link.stream.version >= REMATCH_VERSION
            ):
                member.stays = True  # it stays for a rematch, if one is agreed
                member.gone.set()
                continue
            if isinstance(message, Bye):
                self._drop(member, "it left", quiet=True)
                member.gone.set()
                return
            if isinstance(message, Punch):
                if member.punches is not None:
                    with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError):
                        member.punches.send_nowait(message)  # the first one only
                    member.punches = None
                    continue
                self._drop(member, "a spectator sends PUNCH only when asked")
                return
            if isinstance(message, Candidates) and not member.dialled:
                member.dialled = True  # once: any more are refused below
                if link.stream.path == RELAY and self._nursery is not None:
                    self._nursery.start_soon(self._dial_back, member, message)
                continue
            if not isinstance(message, Ping | Pong):
                name = type(message).__name__.upper()
                self._drop(member, f"a spectator may send only PING, PONG and BYE, not {name}")
                return
            try:
                link.charge()
            except FloodError as exc:
                self._drop(member, str(exc))
                return
            if isinstance(message, Ping):
                self._put(member, Pong(message.token))

    def _start_punch(self, member: _Spectator) -> None:
        """A spectator on the relay: try to punch a path to it (``dbnet.net.punch``),
        once; it moves there when it opens (``_moved``). The attempt runs beside the
        spectators, not in this one's tasks: the spectator leaves the relay as soon as
        its end of the punched path is ready, an instant before this side's."""
        link, door, nursery = member.link, self.punch_door, self._nursery
        if door is None or nursery is None:
            return
        if link.stream.path != RELAY or link.stream.version < PUNCH_VERSION:
            return

        def switch(secure: SecureStream) -> None:
            nursery.start_soon(self._moved, member, secure)

        identity = self.identity
        member.punches = start_punch(
            nursery, link, door, identity, self.timing, switch, "spectator"
        )

    async def _dial_back(self, member: _Spectator, message: Candidates) -> None:
        """Connect to a relayed spectator's candidates (``net.reverse``), then move it
        there (``_moved``)."""
        link, who = member.link, f"{printable(member.name)} ({fingerprint(member.link.peer_key)})"
        try:
            secure = await dial_back(
                message.candidates,
                self.identity,
                link.peer_key,
                handshake_timeout=self.timing.handshake_timeout,
                frame_timeout=self.timing.frame_timeout,
                path=SPECTATOR_PATH,
            )
        except NetError as exc:
            self.say(f"spectator {who}: {dial_failure(exc)}")
            return
        await self._moved(member, secure)

    async def _moved(self, member: _Spectator, secure: SecureStream) -> None:
        """The relayed spectator ``member`` on a direct path: the first that proves its
        key and sends WATCH takes its place, the relayed connection is left."""
        who = f"{printable(member.name)} ({fingerprint(member.link.peer_key)})"
        watch: Message | None = None
        with trio.move_on_after(self.timing.hello_timeout):
            try:
                watch = decode_message(await secure.receive())
            except NetError:
                watch = None
        if not isinstance(watch, Watch):
            await trio.aclose_forcefully(secure)
            return
        self._drop(member, "it moved to a direct path", quiet=True)  # if it has not left
        with trio.move_on_after(self.timing.hello_timeout):
            await self._empty_of(member)
        self.say(f"path: {secure.path} for the spectator {who}")
        await self._spectate(secure, watch)

    async def _empty_of(self, member: _Spectator) -> None:
        while member in self._members:
            await trio.sleep(0.01)


async def _send(link: Link, message: Message, timeout: float) -> None:
    """Send to a spectator, within ``timeout``; unlike ``Link.send`` a cancellation cuts
    the send off (the host drops a spectator at once, whatever it was sending)."""
    with trio.fail_after(timeout):
        await link.stream.send(encode_message(message))


async def _send_all(link: Link, messages: Sequence[Message], timing: Timing) -> None:
    """``_send`` several messages in one write (within ``dead_after``)."""
    if messages:
        with trio.fail_after(timing.dead_after):
            await link.stream.send_many([encode_message(m) for m in messages])


async def _bye(secure: SecureStream, message: Bye) -> None:
    """Tell the spectator why (best effort: its connection may be stuck or gone)."""
    with trio.move_on_after(_CLOSE_TIMEOUT):
        try:
            await secure.send(encode_message(message))
        except NetError:
            return
