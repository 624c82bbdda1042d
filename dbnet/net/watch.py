"""Watching a game as a spectator (the thin trio layer; docs/network.md, section 11).

``Watching.run`` connects to the host (the same handshake as a joiner's: the host's key
is checked against ``expect``, the fingerprint given by hand or by the spectator
invite), sends WATCH (with the proof of the spectator invite's secret when it has one)
and follows the game: the host's HELLO names the game once it has started, then come
the entry records from the start. Each record is checked as it arrives with the checks
of ``dbnet verify`` (``dbnet.replay.verify.ReplayVerifier``: framing, signatures, the
hash chain, the dice links and the arming rule, the re-simulation and every state
hash), so what is shown is a verified game; it is then saved (``ReplayWriter``: one
fsync per record) and told (``match.story.Narrator``, as the verifier applies it), the
players called by the names they signed (A's in the OFFER, B's in the ACCEPT: ``alice
(A)``; ``A`` and ``B`` in games of protocol versions before 3, which have none). BYE
(done) ends the watch once the log is closed, as the players' replays end: complete,
decided, or closed by a claim (a timeout claim, a clock claim, disputed or not), and
``result_line`` names that end; any refusal or failure is a ``WatchError`` in one line.

A spectator never writes an entry: it sends WATCH, then only PINGs and PONGs.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import trio

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.match.render import describe_result
from dbnet.match.story import Event, Narrator
from dbnet.net.errors import NetError
from dbnet.net.handshake import PUNCH_VERSION
from dbnet.net.holepunch import PunchDoor, start_punch
from dbnet.net.link import FloodError, Link, Timing
from dbnet.net.messages import (
    Bye,
    Chat,
    Entry,
    Hello,
    MessageError,
    Ping,
    Pong,
    Punch,
    RematchMessage,
    Watch,
)
from dbnet.net.proof import proof_matches, watch_proof
from dbnet.net.rematch import REMATCH_VERSION
from dbnet.net.reverse import Candidates, send_candidates
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.chat import ChatError, ChatLine, append_chat, chat_path, verify_line
from dbnet.protocol.identity import Identity, fingerprint, same_fingerprint
from dbnet.protocol.log import GameLog
from dbnet.replay.file import ReplayWriter
from dbnet.replay.paths import now_utc, start_replay
from dbnet.replay.verify import ReplayVerifier, Verdict, VerdictStatus
from dbnet.text import counted, printable
from dbnet.wire.bodies import AcceptBody, OfferBody
from dbnet.wire.entries import decode_signed_entry
from dbnet.wire.replay_header import ReplayHeader, encode_replay_header

__all__ = ["STAY_HINT", "WatchError", "WatchRefusedError", "Watching"]

STAY_HINT = (
    "this watch ends with the game; the players may agree on a rematch over their "
    "connection: dbnet watch --stay stays for it"
)

Connect = Callable[[], Awaitable[trio.abc.Stream | SecureStream]]
Door = Callable[..., Awaitable[None]]
"""Started with ``nursery.start(door, switch_to)``; gives the candidates to send."""


class WatchError(NetError):
    """The watch cannot go on: the host is not the expected one, it sent something a
    spectator must not accept (an invalid entry), or the connection broke."""


class WatchRefusedError(WatchError):
    """The host refused this spectator or stopped serving it (BYE): full, the game
    over, a wrong proof, fallen behind."""


class Watching:
    """One spectator's watch of one game."""

    def __init__(
        self,
        identity: Identity,
        name: str,
        *,
        say: Callable[[str], None],
        on_events: Callable[[list[Event]], None] | None = None,
        expect: str | None = None,
        secret: bytes | None = None,
        replay_path: Path | None = None,
        timing: Timing | None = None,
        stay: bool = False,
        next_replay: Callable[[Path | None], Path | None] | None = None,
        on_game_end: Callable[[Verdict], None] | None = None,
    ) -> None:
        self.identity = identity
        self.name = name
        self.say = say
        self.on_events = on_events
        self.expect = expect
        self.secret = secret
        """The spectator invite's secret: this side proves it, and the host must too."""
        self.replay_path = replay_path
        self.timing = timing or Timing()
        self.stay = stay
        """Stay for the players' rematch (REMATCH after BYE, done: docs/network.md 11)."""
        self.next_replay = next_replay
        self.on_game_end = on_game_end
        """Told each game's verdict when the next game of a rematch starts."""
        self.host_name: str | None = None
        self.verifier: ReplayVerifier | None = None
        self.writer: ReplayWriter | None = None
        self.narrator: Narrator | None = None
        self._created: str | None = None
        self._host_key: bytes | None = None  # the key the channel authenticated
        self._game_id: bytes | None = None  # the game the host's HELLO named
        self._chat_seq: dict[Player, int] = {}  # the last chat line number of each seat
        self.doors: list[Door] = []
        """What may give this spectator another connection to the host (``switch_to``)
        and candidates to send it (``dbnet.net.reverse.joiner_door``), started by ``run``."""
        self.own_candidates: Candidates | None = None
        self.punch_door: PunchDoor | None = None
        """This spectator's punching sockets (``dbnet.net.holepunch``): on the relay, it
        moves to a path punched to the host; None: it answers the host's PUNCH with none."""
        self.punching: Callable[[], AbstractAsyncContextManager[PunchDoor | None]] | None = None
        """Makes the punching sockets for the watch's time (``holepunch.punching``)."""
        self._punches: trio.MemorySendChannel[Punch] | None = None  # to this link's attempt
        self._punch_answered: Link | None = None  # the link whose PUNCH was answered
        self._next: SecureStream | None = None
        self._switch_scope = trio.CancelScope()
        self._records: list[bytes] = []  # every record verified, to check those sent again
        self._resent = 0  # entries received on the current connection
        self._chat_lines: list[ChatLine] = []  # every chat line received, in order
        self._chat_resent = 0  # chat lines received on the current connection
        self._hello_seen = False  # the current connection's HELLO came
        self.names: tuple[str | None, str | None] = (None, None)
        """The names the players signed (A's in the OFFER, B's in the ACCEPT), once known;
        None for a player of a protocol version before 3."""

    @property
    def labels(self) -> tuple[str, str]:
        """What the players are called: ``alice (A)`` by the name signed, else ``A``."""
        return (_label(self.names[0], "A"), _label(self.names[1], "B"))

    @property
    def log(self) -> GameLog | None:
        """The game so far, every entry of it verified."""
        return None if self.verifier is None else self.verifier.log

    async def run(self, connect: Connect) -> Verdict:
        """Watch the game to its end: the verdict on it (complete or decided, with the
        winner, or closed by a claim).

        Raises:
            WatchRefusedError: the host refused this spectator or dropped it.
            WatchError: the host's key is not the expected one, it broke the protocol or
                sent an invalid entry, or the connection broke.
        """
        try:
            stream = await connect()
            secure = (
                stream
                if isinstance(stream, SecureStream)
                else await open_channel(
                    stream,
                    self.identity,
                    initiator=True,
                    handshake_timeout=self.timing.handshake_timeout,
                    frame_timeout=self.timing.frame_timeout,
                )
            )
        except OSError as exc:
            raise WatchError(f"cannot reach the host: {exc.strerror or exc}") from exc
        except NetError as exc:
            raise WatchError(f"cannot reach the host: {printable(str(exc))}") from exc
        try:
            async with self._punching(), trio.open_nursery() as doors:
                for door in self.doors:
                    self.own_candidates = await doors.start(door, self.switch_to)
                while True:
                    verdict = await self._watch_on(secure)
                    if verdict is not None:
                        doors.cancel_scope.cancel()
                        return verdict
                    assert self._next is not None
                    secure, self._next = self._next, None
        except BaseExceptionGroup as group:  # the watch's own error, as it was raised
            if len(group.exceptions) == 1 and isinstance(group.exceptions[0], Exception):
                raise group.exceptions[0] from None
            raise

    def switch_to(self, stream: SecureStream) -> None:
        """Watch over ``stream`` from now on: the host's connection to this spectator's
        port mapping (``dbnet.net.reverse``); the current connection is left, and the
        entries and chat lines the host sends again on the new one are checked against
        those held (and not shown twice)."""
        if self._next is not None:
            return  # one move at a time; the host makes only one
        self._next = stream
        self.say(f"path: {stream.path}")
        self._switch_scope.cancel()

    async def _watch_on(self, secure: SecureStream) -> Verdict | None:
        """Watch over one connection: the verdict, or None when ``switch_to`` moved the
        watch to another."""
        link = Link(secure, self.timing)
        self._resent = 0
        self._chat_resent = 0
        self._hello_seen = False
        try:
            self._check_key(secure.peer_key)
            if self._host_key is not None and secure.peer_key != self._host_key:
                raise WatchError("the host's key changed between two connections")
            self._host_key = secure.peer_key
            with trio.CancelScope() as self._switch_scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(link.heartbeat)
                    proof = (
                        None if self.secret is None else watch_proof(self.secret, secure.transcript)
                    )
                    await link.send(Watch(self.name, proof))
                    if secure.path == RELAY and self.own_candidates is not None:
                        nursery.start_soon(send_candidates, link, self.own_candidates, self.say)
                    if secure.path == RELAY and secure.version >= PUNCH_VERSION:
                        self._start_punch(link, nursery)
                    verdict = await self._follow(link)
                    if not self.stay and secure.version >= REMATCH_VERSION:
                        self.say(STAY_HINT)
                    while self.stay and secure.version >= REMATCH_VERSION:
                        hello = await self._next_game(link)
                        if hello is None:
                            break
                        if self.on_game_end is not None:
                            self.on_game_end(verdict)
                        self._reset()
                        self._hello(link, hello)
                        verdict = await self._follow(link)
                    nursery.cancel_scope.cancel()
                return verdict
            return None
        except* WatchError as group:
            raise group.exceptions[0] from None
        except* MessageError as group:
            raise WatchError(f"the host broke the protocol: {group.exceptions[0]}") from None
        except* NetError as group:
            raise WatchError(f"the connection broke: {group.exceptions[0]}") from None
        except* DbnetError as group:  # the replay file: a full disk, say
            raise group.exceptions[0] from None
        finally:
            await link.close()

    async def _next_game(self, link: Link) -> Hello | None:
        """Say this side stays, then wait for the next game's HELLO (a rematch was agreed)
        or the host's BYE or close (none was): None."""
        await link.send(RematchMessage(True, ""))
        self.say("the game is over; staying in case the players agree on a rematch (Ctrl-C leaves)")
        while True:
            try:
                message = await link.receive()
            except NetError:
                return None  # the host closed: no next game
            if isinstance(message, Hello):
                return message
            if isinstance(message, Bye):
                self.say(f"no next game: {printable(message.reason)}")
                return None
            if isinstance(message, Punch):
                await self._punched(link, message)
                continue
            if not isinstance(message, Ping | Pong):
                name = type(message).__name__.upper()
                raise WatchError(f"the host broke the protocol: {name} between two games")
            await self._keep_alive(link, message)

    async def _keep_alive(self, link: Link, message: Ping | Pong) -> None:
        """A PING or PONG from the host: charged to its flood budget; a PING answered."""
        try:
            link.charge()
        except FloodError as exc:
            raise WatchError(f"the host broke the protocol: {exc}") from exc
        if isinstance(message, Ping):
            await link.send(Pong(message.token))

    @asynccontextmanager
    async def _punching(self) -> AsyncIterator[None]:
        """``punch_door`` from ``punching`` while the body runs, if there is one."""
        if self.punching is None:
            yield
            return
        async with self.punching() as self.punch_door:
            yield

    def _start_punch(self, link: Link, nursery: trio.Nursery) -> None:
        """On the relay: try to move to a path punched to the host (``net.punch``)."""
        door = self.punch_door
        self._punches = None
        if door is None:
            return
        self._punches = start_punch(nursery, link, door, self.identity, self.timing, self.switch_to)

    async def _punched(self, link: Link, message: Punch) -> None:
        """The host's PUNCH: to this link's attempt; without one, answered with none
        (once: any more are charged to the host's flood budget)."""
        if self._punches is not None:
            with contextlib.suppress(trio.WouldBlock, trio.BrokenResourceError):
                self._punches.send_nowait(message)
            self._punches = None
        elif self._punch_answered is not link:
            self._punch_answered = link
            await link.send(Punch(()))
        else:
            try:
                link.charge()
            except FloodError as exc:
                raise WatchError(f"the host broke the protocol: {exc}") from exc

    def _reset(self) -> None:
        """Forget the last game (its replay is closed) before the next one's HELLO."""
        self.close()
        self.writer = self.verifier = self.narrator = None
        self.host_name = self._created = self._game_id = None
        self._chat_seq = {}
        self.names = (None, None)
        self._records, self._chat_lines = [], []  # the next game's, from its OFFER on
        self._resent = self._chat_resent = 0
        self._hello_seen = False
        if self.next_replay is not None:
            self.replay_path = self.next_replay(self.replay_path)

    def _check_key(self, key: bytes) -> None:
        found = fingerprint(key)
        if self.expect is not None and not same_fingerprint(self.expect, found):
            raise WatchError(
                f"the host's key fingerprint is {found}, not the expected {self.expect}: "
                "refusing to watch (wrong key)"
            )

    async def _follow(self, link: Link) -> Verdict:
        while True:
            message = await link.receive()
            if isinstance(message, Bye):
                return self._end(message)
            if isinstance(message, Hello):
                self._hello(link, message)
            elif isinstance(message, Entry):
                if not self._hello_seen:
                    raise WatchError("the host sent an entry before its HELLO")
                seq, self._resent = self._resent, self._resent + 1
                if seq < len(self._records):  # sent again on a new connection
                    if message.record != self._records[seq]:
                        raise WatchError(f"the host sent another entry {seq} than before")
                    continue
                self._entry(message.record)
                self._records.append(message.record)
            elif isinstance(message, Chat):
                seq, self._chat_resent = self._chat_resent, self._chat_resent + 1
                if seq < len(self._chat_lines):  # sent again on a new connection
                    if message.line != self._chat_lines[seq]:
                        raise WatchError(f"the host sent another chat line {seq} than before")
                    continue
                self._chat_lines.append(message.line)
                self._chat(message.line)
            elif isinstance(message, Ping | Pong):
                await self._keep_alive(link, message)
            elif isinstance(message, Punch):
                await self._punched(link, message)
            else:
                raise WatchError("the host sent WATCH: it is not a host")

    def _hello(self, link: Link, hello: Hello) -> None:
        if self._hello_seen:
            raise WatchError("the host sent HELLO twice")
        if hello.game_id is None:
            raise WatchError("the host's HELLO names no game")
        if self._game_id is not None and hello.game_id != self._game_id:
            raise WatchError("the host names another game on its new connection")
        if self.secret is not None and not proof_matches(
            self.secret, link.stream.transcript, hello.proof, joiner=False
        ):
            raise WatchError(
                "the host did not prove that it made the spectator invite: refusing to watch"
            )
        self._hello_seen = True
        if self.host_name is not None:
            return  # a new connection to the same game: said by its path line
        self.host_name = hello.name
        self._created = hello.created
        self._game_id = hello.game_id
        self.say(
            f"watching the game {hello.game_id.hex()[:16]} of {printable(hello.name)} "
            f"({fingerprint(link.peer_key)}) via {link.stream.path}; "
            f"{counted(hello.have, 'entry', 'entries')} so far"
        )

    def _entry(self, record: bytes) -> None:
        """Verify the next record as ``dbnet verify`` would, save it, tell it."""
        verifier = self.verifier
        try:
            if verifier is None:
                verifier = self._start(record)
            else:
                verifier.add(record)
        except WatchError:
            raise  # not the host's own game: said as it is
        except DbnetError as exc:
            seq = 0 if verifier is None or verifier.log is None else len(verifier.log.entries)
            raise WatchError(
                f"the host sent an invalid entry {seq}: {printable(str(exc))}{self._saved()}"
            ) from exc
        if self.writer is not None:
            self.writer.append(record)
        log = verifier.log
        assert log is not None
        if self.narrator is None:
            if len(log.decoded) < 2:
                return  # the OFFER tells nothing; the ACCEPT brings B's name
            self._name_players(log)
            self.narrator = Narrator(log.game.setup, labels=self.labels)
            self.narrator.attach(log)  # told as the verifier checks each entry from here
        events = self.narrator.follow(log)
        if events and self.on_events is not None:
            self.on_events(events)

    def _chat(self, line: ChatLine) -> None:
        """A players' chat line, relayed by the host: shown (and kept beside this replay)
        only if its sender signed it for this game; else refused in one line (the host
        cannot put words in its opponent's mouth)."""
        log = self.log
        if log is None or self._game_id is None or self.narrator is None:
            self.say("chat: a line before the game started is refused")
            return
        last = self._chat_seq.get(line.seat, 0)
        try:
            verify_line(line, log.game_id, log.keys)
            if line.seq <= last:
                raise ChatError(f"{line.seat.name}'s line {line.seq} came twice or out of order")
        except ChatError as exc:
            self.say(f"chat: a line is refused: {exc}")
            return
        self._chat_seq[line.seat] = line.seq
        if self.writer is not None:
            try:
                append_chat(chat_path(self.writer.path), line)
            except OSError as exc:
                self.say(f"chat: not saved beside the replay: {exc}")
        self.say(f"{self.labels[line.seat.value]} says: {printable(line.text)}")

    def _name_players(self, log: GameLog) -> None:
        """The names signed in the OFFER and the ACCEPT, said in one line."""
        offer, accept = log.decoded[0].body, log.decoded[1].body
        self.names = (
            offer.name if isinstance(offer, OfferBody) else None,
            accept.name if isinstance(accept, AcceptBody) else None,
        )
        a, b = self.labels
        self.say(
            f"the players: {a}, key {fingerprint(log.keys[0])}, against {b}, key "
            f"{fingerprint(log.keys[1])}"
        )

    def _start(self, record: bytes) -> ReplayVerifier:
        """The verifier (and the replay file) of the game whose OFFER is ``record``."""
        _, entry = decode_signed_entry(record)
        body = entry.body
        if not isinstance(body, OfferBody):
            raise WatchError(f"the host's first entry is {entry.kind.name}, not an OFFER")
        self._check_host_game(entry.game_id, body)
        created = self._created or now_utc().isoformat().replace("+00:00", "Z")
        header = ReplayHeader(
            format=entry.version,  # format N holds entries of protocol version N
            protocol=entry.version,
            rules=body.rules,
            game_id=entry.game_id,
            keys=(body.keys[0], body.keys[1]),
            created=created,
        )
        where = str(self.replay_path) if self.replay_path is not None else "the watched game"
        verifier = ReplayVerifier(where)
        verifier.add(encode_replay_header(header))
        verifier.add(record)
        self.verifier = verifier
        if self.replay_path is not None:
            self.writer = start_replay(self.replay_path, header)
            self.say(f"replay: {self.replay_path}")
        return verifier

    def _check_host_game(self, game_id: bytes, offer: OfferBody) -> None:
        """The game shown must be the host's own and the one its HELLO named: the key the
        channel authenticated plays one of the OFFER's seats (A, or B when the joiner
        hosts a resumed game), and the HELLO's game id is the OFFER's. Else a host could
        show someone else's game as its own; nothing is saved."""
        host = self._host_key
        assert host is not None
        if host not in offer.keys:
            raise WatchError(
                f"the host ({fingerprint(host)}) shows a game between "
                f"{fingerprint(offer.keys[0])} and {fingerprint(offer.keys[1])}, which it "
                "does not play: refusing to watch someone else's game as the host's"
            )
        if game_id != self._game_id:
            said = "none" if self._game_id is None else self._game_id.hex()[:16]
            raise WatchError(
                f"the host's HELLO named the game {said}, but its OFFER is of the game "
                f"{game_id.hex()[:16]}: refusing to watch"
            )

    def _saved(self) -> str:
        if self.writer is None or not self.writer.entries:
            return ""
        return f"; the verified entries before it are saved in {self.writer.path}"

    def _end(self, bye: Bye) -> Verdict:
        if not bye.done:
            what = "refused this spectator" if self.host_name is None else "stopped the watch"
            raise WatchRefusedError(f"the host {what}: {printable(bye.reason)}")
        verifier = self.verifier
        if verifier is None:
            raise WatchError("the host said the game is over, but sent none of it")
        verdict = verifier.verdict()
        if verdict.status is VerdictStatus.UNFINISHED:
            raise WatchError(
                f"the host said the game is over, but it is not: {verdict.summary()}{self._saved()}"
            )
        return verdict

    def result_line(self, verdict: Verdict) -> str:
        """The end of the watched game in one line, as the players are told it: the
        winner of a complete (or decided) game, else the verifier's words for the claim
        that closed it (never a win: a claim is its claimant's word)."""
        log = self.log
        if log is not None and verdict.status is VerdictStatus.COMPLETE:
            return describe_result(log.game, self.labels)
        if log is not None and verdict.status is VerdictStatus.DECIDED:
            return (
                f"{describe_result(log.game, self.labels)} (derived by re-simulation; the "
                "result is not counter-signed)"
            )
        return f"the game ended with a {verdict.summary()}"

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _label(name: str | None, letter: str) -> str:
    return letter if not name else f"{printable(name)} ({letter})"
