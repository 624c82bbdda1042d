"""The messages two peers exchange inside the encrypted channel (docs/network.md).

Each message is a msgpack array ``[type, ...]``, described once by its shape below
and decoded strictly by ``dbnet.wire`` (canonical bytes only); anything else is a
``MessageError`` naming the field. Only ``Entry`` messages carry game data (signed
records, exactly as signed); the others steer the connection and are never saved.

========  ====  ===============================================================
message   type  fields
========  ====  ===============================================================
Hello     0     name, game id (or nil for a new game), entries held, warband
                (or nil), replay creation time (or nil), the joiner's nonce (or nil),
                the proof of the invite's secret (or nil; ``dbnet.net.proof``)
Entry     1     one signed entry record
Ping      2     token
Pong      3     the token of the Ping it answers
Bye       4     done (true: the game's log is complete here), reason
Watch     5     name, the proof of the spectator invite's secret (or nil): a
                spectator's first message, instead of HELLO (``dbnet.net.spectators``)
Chat      6     seat (0: A, 1: B), seq, at, text, signature: a player's signed chat
                line (``dbnet.protocol.chat``); channel version 4 and later only
Rematch   7     want (true: another game on this connection), reason (why not, or
                empty): sent once after BYE (done), from channel version 4 on
                (``dbnet.net.rematch``)
Candidates 8    1 to 8 ``[kind, address, port]``: where a joiner listens for its host
                to connect to it (``dbnet.net.reverse``); channel version 4 and later
Punch     9     0 to 4 ``[address, port]``: where the sender's hole-punching UDP
                socket is seen (``dbnet.net.punch``); channel version 5 and later
========  ====  ===============================================================
"""

from __future__ import annotations

import datetime
import enum
import ipaddress
import re
from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from dbnet.engine import Player, Warband
from dbnet.errors import DecodeError
from dbnet.net.errors import NetError
from dbnet.net.invite import MAX_CANDIDATES, Candidate, InviteError, PathKind
from dbnet.net.punch import MAX_PUNCH_CANDIDATES, PunchCandidate, PunchCandidateError
from dbnet.protocol.chat import MAX_CHAT_CHARS, MAX_SEQ, ChatLine
from dbnet.wire import schema
from dbnet.wire.schema import Hash, Meta, Name, Schema, Shape, Signature, refuse
from dbnet.wire.setup import WarbandShape
from dbnet.wire.values import encode

MAX_REASON_LEN: Final = 200
MAX_ENTRIES: Final = 2**31
NAME_PATTERN: Final = schema.NAME_PATTERN
"""A player's name: what the other side pins their key under in known_peers."""
CREATED_PATTERN: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)
"""A replay header's creation time, in UTC to the second (``2026-05-01T12:00:00Z``)."""
CREATED_FORMAT: Final = "%Y-%m-%dT%H:%M:%SZ"
"""The same, for ``strptime``: the date and the time of day must exist."""


class MessageError(NetError):
    """A message that is not one of ours, or breaks its schema; names the field."""


class MessageType(enum.IntEnum):
    HELLO = 0
    ENTRY = 1
    PING = 2
    PONG = 3
    BYE = 4
    WATCH = 5
    CHAT = 6
    REMATCH = 7
    CANDIDATES = 8
    PUNCH = 9


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message on every connection, from both sides.

    ``game_id`` is None when the sender has no game with the other yet; ``have`` is
    how many entries of the game the sender holds (the other resends the rest);
    ``warband`` is the joining player's warband for a new game, else None;
    ``created`` is the creation time the host gives a new game's replay header, which
    the joiner copies so that both replay files are the same byte for byte, else None;
    ``nonce`` is the joining player's fresh nonce for a new game (the host must put it in
    the OFFER, so the game id is fresh even if the host reuses its own), else None;
    ``proof`` shows that the sender knows the invite's secret, bound to this connection
    (``dbnet.net.proof``), else None.
    """

    name: str
    game_id: bytes | None
    have: int
    warband: Warband | None = None
    created: str | None = None
    nonce: bytes | None = None
    proof: bytes | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One signed entry record of the game, as signed."""

    record: bytes

    def __repr__(self) -> str:
        return f"Entry(<{len(self.record)} bytes>)"


@dataclass(frozen=True, slots=True)
class Ping:
    token: int


@dataclass(frozen=True, slots=True)
class Pong:
    token: int


@dataclass(frozen=True, slots=True)
class Bye:
    """The sender is leaving. ``done``: its log of the game is complete (both may close
    once each has said so); otherwise ``reason`` says what went wrong."""

    done: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Watch:
    """A spectator's first message, sent instead of HELLO: it asks to watch the game,
    never to play it. ``proof`` shows that it knows the secret of the host's spectator
    invite (``dbnet.net.proof``, the watcher's role), else None."""

    name: str
    proof: bytes | None = None


@dataclass(frozen=True, slots=True)
class Chat:
    """A player's chat line, signed by its sender (``dbnet.protocol.chat``): from a player
    to the other, or from the host to its spectators. Sent only on a channel of version 4
    or later; never saved in the replay (beside it, in ``REPLAY.chat``)."""

    line: ChatLine


@dataclass(frozen=True, slots=True)
class RematchMessage:
    """After the game (right after BYE, done): whether the sender wants another game over
    this connection (``dbnet.net.rematch``); ``reason`` says why not."""

    want: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Candidates:
    """Where the joiner listens for its host to connect to it (its router's port
    mapping), sent over a path they share already (the relay) on a channel of version 4
    or later; the host tries them within bounds (``dbnet.net.reverse``)."""

    candidates: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class Punch:
    """Where the sender's hole-punching socket is seen (none: it has no candidate, and
    the attempt ends), sent over the relay on a channel of version 5 or later
    (``dbnet.net.punch``)."""

    candidates: tuple[PunchCandidate, ...]


Message = Hello | Entry | Ping | Pong | Bye | Watch | Chat | RematchMessage | Candidates | Punch

# --- the messages on the wire: one shape each (Shape), the type first ---------------------

_Count = Annotated[int, Meta(ge=0, le=MAX_ENTRIES - 1)]


class _Hello(Shape, array_like=True, tag=MessageType.HELLO.value):
    WHERE: ClassVar[str] = "hello"
    name: Name
    game_id: Hash | None
    have: _Count
    warband: WarbandShape | None
    created: (
        Annotated[
            str,
            Meta(
                pattern=rf"(?a)^(?:{CREATED_PATTERN.pattern})\Z",
                extra=refuse("expected nil or a UTC time like 2026-05-01T12:00:00Z, got {value}"),
            ),
        ]
        | None
    )
    nonce: Hash | None
    proof: Hash | None

    def value(self) -> Hello:
        created = self.created
        if created is not None:
            try:
                datetime.datetime.strptime(created, CREATED_FORMAT)
            except ValueError:
                raise DecodeError(
                    "hello.created",
                    "expected nil or a UTC time like 2026-05-01T12:00:00Z, got "
                    f"{created!r}, which is no such date or time",
                ) from None
        warband = None if self.warband is None else self.warband.value("hello.warband")
        return Hello(self.name, self.game_id, self.have, warband, created, self.nonce, self.proof)


class _Entry(Shape, array_like=True, tag=MessageType.ENTRY.value):
    WHERE: ClassVar[str] = "entry"
    record: bytes

    def value(self) -> Entry:
        return Entry(self.record)


class _Ping(Shape, array_like=True, tag=MessageType.PING.value):
    WHERE: ClassVar[str] = "ping"
    token: _Count

    def value(self) -> Ping:
        return Ping(self.token)


class _Pong(Shape, array_like=True, tag=MessageType.PONG.value):
    WHERE: ClassVar[str] = "pong"
    token: _Count

    def value(self) -> Pong:
        return Pong(self.token)


class _Bye(Shape, array_like=True, tag=MessageType.BYE.value):
    WHERE: ClassVar[str] = "bye"
    done: bool
    reason: Annotated[str, Meta(max_length=MAX_REASON_LEN)]

    def value(self) -> Bye:
        return Bye(self.done, self.reason)


class _Watch(Shape, array_like=True, tag=MessageType.WATCH.value):
    WHERE: ClassVar[str] = "watch"
    name: Name
    proof: Hash | None

    def value(self) -> Watch:
        return Watch(self.name, self.proof)


class _Chat(Shape, array_like=True, tag=MessageType.CHAT.value):
    WHERE: ClassVar[str] = "chat"
    seat: Annotated[int, Meta(ge=0, le=1)]
    seq: Annotated[int, Meta(ge=1, le=MAX_SEQ)]
    at: Annotated[int, Meta(ge=0, le=MAX_SEQ)]
    text: Annotated[str, Meta(max_length=MAX_CHAT_CHARS)]
    signature: Signature

    def value(self) -> Chat:
        return Chat(ChatLine(Player(self.seat), self.seq, self.at, self.text, self.signature))


class _Rematch(Shape, array_like=True, tag=MessageType.REMATCH.value):
    WHERE: ClassVar[str] = "rematch"
    want: bool
    reason: Annotated[str, Meta(max_length=MAX_REASON_LEN)]

    def value(self) -> RematchMessage:
        return RematchMessage(self.want, self.reason)


class _Candidate(Shape, array_like=True):
    kind: Annotated[str, Meta(max_length=16)]
    address: Annotated[str, Meta(max_length=64)]
    port: Annotated[int, Meta(ge=1, le=65535)]

    def value(self, where: str) -> Candidate:
        try:
            return Candidate(PathKind(self.kind), ipaddress.ip_address(self.address), self.port)
        except (ValueError, InviteError) as exc:
            raise DecodeError(where, f"not a direct candidate: {exc}") from None


class _Candidates(Shape, array_like=True, tag=MessageType.CANDIDATES.value):
    WHERE: ClassVar[str] = "candidates"
    candidates: Annotated[list[_Candidate], Meta(min_length=1, max_length=MAX_CANDIDATES)]

    def value(self) -> Candidates:
        return Candidates(tuple(c.value(f"candidates[{i}]") for i, c in enumerate(self.candidates)))


class _PunchCandidate(Shape, array_like=True):
    address: Annotated[str, Meta(max_length=64)]
    port: Annotated[int, Meta(ge=1, le=65535)]

    def value(self, where: str) -> PunchCandidate:
        try:
            found = PunchCandidate(ipaddress.ip_address(self.address), self.port)
            if str(found.address) != self.address:
                raise ValueError(f"{self.address!r} is not in its canonical form {found.address}")
            return found
        except (ValueError, PunchCandidateError) as exc:
            raise DecodeError(where, f"not a hole-punching candidate: {exc}") from None


class _Punch(Shape, array_like=True, tag=MessageType.PUNCH.value):
    WHERE: ClassVar[str] = "punch"
    candidates: Annotated[list[_PunchCandidate], Meta(max_length=MAX_PUNCH_CANDIDATES)]

    def value(self) -> Punch:
        found = tuple(c.value(f"punch[{i}]") for i, c in enumerate(self.candidates))
        if len(set(found)) != len(found):
            raise DecodeError("punch", "a candidate is listed twice")
        return Punch(found)


_Shape = _Hello | _Entry | _Ping | _Pong | _Bye | _Watch | _Chat | _Rematch | _Candidates | _Punch
_MESSAGE: Final = Schema[_Shape](
    Annotated[_Shape, Meta(extra=refuse("unknown message type {value}"))], "message"
)


def encode_message(message: Message) -> bytes:
    """The message's bytes (to send through ``SecureStream.send``)."""
    shape: _Shape
    if isinstance(message, Hello):
        m = message
        warband = None if m.warband is None else WarbandShape.of(m.warband)
        shape = _Hello(m.name, m.game_id, m.have, warband, m.created, m.nonce, m.proof)
    elif isinstance(message, Entry):
        shape = _Entry(message.record)
    elif isinstance(message, Ping):
        shape = _Ping(message.token)
    elif isinstance(message, Pong):
        shape = _Pong(message.token)
    elif isinstance(message, Watch):
        shape = _Watch(message.name, message.proof)
    elif isinstance(message, Chat):
        c = message.line
        shape = _Chat(c.seat.value, c.seq, c.at, c.text, c.signature)
    elif isinstance(message, RematchMessage):
        shape = _Rematch(message.want, message.reason)
    elif isinstance(message, Candidates):
        shape = _Candidates(
            [_Candidate(c.kind.value, str(c.address), c.port) for c in message.candidates]
        )
    elif isinstance(message, Punch):
        shape = _Punch([_PunchCandidate(str(c.address), c.port) for c in message.candidates])
    else:
        shape = _Bye(message.done, message.reason)
    return encode(shape)


def decode_message(data: bytes) -> Message:
    """The message in ``data``, which must be its canonical encoding (as
    ``dbnet.wire.values`` writes).

    Raises:
        MessageError: malformed or non-canonical msgpack, an unknown type, or a field that
            breaks the schema.
    """
    try:
        return _MESSAGE.decode(data).value()
    except DecodeError as exc:
        raise MessageError(f"bad message from the peer: {exc}") from exc
