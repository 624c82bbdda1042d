"""The messages two peers exchange inside the encrypted channel (docs/network.md).

Each message is a msgpack array ``[type, ...]`` decoded strictly by ``codec``
and then checked field by field; anything else is a ``MessageError`` naming the
field. Only ``Entry`` messages carry game data (signed records, exactly as
signed); the others steer the connection and are never saved.

========  ====  ===============================================================
message   type  fields
========  ====  ===============================================================
Hello     0     name, game id (or nil for a new game), entries held, warband
                (or nil), replay creation time (or nil), the joiner's nonce (or nil)
Entry     1     one signed entry record
Ping      2     token
Pong      3     the token of the Ping it answers
Bye       4     done (true: the game's log is complete here), reason
========  ====  ===============================================================
"""

from __future__ import annotations

import datetime
import enum
import re
from dataclasses import dataclass
from typing import Final

from dbnet.engine import Warband
from dbnet.errors import DecodeError
from dbnet.net.errors import NetError
from dbnet.wire import codec

MAX_NAME_LEN: Final = 32
MAX_REASON_LEN: Final = 200
MAX_ENTRIES: Final = 2**31
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
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


@dataclass(frozen=True, slots=True)
class Hello:
    """The first message on every connection, from both sides.

    ``game_id`` is None when the sender has no game with the other yet; ``have`` is
    how many entries of the game the sender holds (the other resends the rest);
    ``warband`` is the joining player's warband for a new game, else None;
    ``created`` is the creation time the host gives a new game's replay header, which
    the joiner copies so that both replay files are the same byte for byte, else None;
    ``nonce`` is the joining player's fresh nonce for a new game (the host must put it in
    the OFFER, so the game id is fresh even if the host reuses its own), else None.
    """

    name: str
    game_id: bytes | None
    have: int
    warband: Warband | None = None
    created: str | None = None
    nonce: bytes | None = None


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


Message = Hello | Entry | Ping | Pong | Bye


def encode_message(message: Message) -> bytes:
    """The message's bytes (to send through ``SecureStream.send``)."""
    wire: list[object]
    if isinstance(message, Hello):
        warband = None if message.warband is None else codec.warband_to_wire(message.warband)
        wire = [
            MessageType.HELLO,
            message.name,
            message.game_id,
            message.have,
            warband,
            message.created,
            message.nonce,
        ]
    elif isinstance(message, Entry):
        wire = [MessageType.ENTRY, message.record]
    elif isinstance(message, Ping):
        wire = [MessageType.PING, message.token]
    elif isinstance(message, Pong):
        wire = [MessageType.PONG, message.token]
    else:
        wire = [MessageType.BYE, message.done, message.reason]
    return codec.encode([int(item) if isinstance(item, MessageType) else item for item in wire])


def decode_message(data: bytes) -> Message:
    """The message in ``data``.

    Raises:
        MessageError: malformed msgpack, an unknown type, or a field that breaks the schema.
    """
    try:
        obj = codec.decode(data, where="message")
        return _from_wire(obj)
    except DecodeError as exc:
        raise MessageError(f"bad message from the peer: {exc}") from exc


def _from_wire(obj: object) -> Message:
    if type(obj) is not list or not obj:
        raise DecodeError("message", "expected an array [type, ...]")
    kind = obj[0]
    if type(kind) is not int or not MessageType.HELLO <= kind <= MessageType.BYE:
        raise DecodeError("message[0]", f"unknown message type {kind!r}")
    fields = obj[1:]
    sizes = {0: 6, 1: 1, 2: 1, 3: 1, 4: 2}
    if len(fields) != sizes[kind]:
        name = MessageType(kind).name
        raise DecodeError("message", f"{name} has {sizes[kind]} fields, got {len(fields)}")
    if kind == MessageType.HELLO:
        name, game_id, have, warband, created, nonce = fields
        if type(name) is not str or not NAME_PATTERN.fullmatch(name):
            raise DecodeError(
                "hello.name", f"expected a name of 1-32 letters, digits, '_', '.', '-': {name!r}"
            )
        if game_id is not None and (type(game_id) is not bytes or len(game_id) != 32):
            raise DecodeError("hello.game_id", "expected 32 bytes or nil")
        if nonce is not None and (type(nonce) is not bytes or len(nonce) != 32):
            raise DecodeError("hello.nonce", "expected 32 bytes or nil")
        return Hello(
            name,
            game_id,
            _count(have, "hello.have"),
            None if warband is None else codec.warband_from_wire(warband, "hello.warband"),
            None if created is None else _created(created),
            nonce,
        )
    if kind == MessageType.ENTRY:
        (record,) = fields
        if type(record) is not bytes:
            raise DecodeError("entry.record", "expected bytes")
        return Entry(record)
    if kind == MessageType.BYE:
        done, reason = fields
        if type(done) is not bool:
            raise DecodeError("bye.done", "expected true or false")
        if type(reason) is not str or len(reason) > MAX_REASON_LEN:
            raise DecodeError("bye.reason", f"expected a string of at most {MAX_REASON_LEN}")
        return Bye(done, reason)
    (token,) = fields
    where = "ping.token" if kind == MessageType.PING else "pong.token"
    token = _count(token, where)
    return Ping(token) if kind == MessageType.PING else Pong(token)


def _created(value: object) -> str:
    """A HELLO's creation time: the pattern, and a real date and time of day."""
    expected = "expected nil or a UTC time like 2026-05-01T12:00:00Z"
    if type(value) is not str or not CREATED_PATTERN.fullmatch(value):
        raise DecodeError("hello.created", f"{expected}, got {value!r}")
    try:
        datetime.datetime.strptime(value, CREATED_FORMAT)
    except ValueError:
        raise DecodeError(
            "hello.created", f"{expected}, got {value!r}, which is no such date or time"
        ) from None
    return value


def _count(value: object, where: str) -> int:
    if type(value) is not int or not 0 <= value < MAX_ENTRIES:
        raise DecodeError(where, f"expected an integer from 0 to {MAX_ENTRIES - 1}, got {value!r}")
    return value
