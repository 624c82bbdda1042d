"""An entry of a game's log and its signed record: what an author signs (the canonical
bytes of ``[version, game_id, seq, author, prev_hash, kind, body]``), how it is hashed into
the chain and read back strictly (docs/entries.md, section 1)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Annotated, Final, TypeVar

import msgspec
from msgspec import Meta, Raw

from dbnet.errors import DecodeError
from dbnet.wire.bodies import BODY_SCHEMAS, Body, BodyShape, EntryKind, body_shape
from dbnet.wire.schema import (
    HASH_SIZE,
    Count,
    Hash,
    Schema,
    Shape,
    Side,
    Signature,
    refuse,
    supported,
)
from dbnet.wire.values import MAX_MESSAGE_SIZE, encode
from dbnet.wire.versions import DISPUTE_VERSION, PROTOCOL_VERSIONS

# A signed entry record is [signed (bin16), signature (bin8, 64 bytes)]: 70 bytes of framing.
MAX_ENTRY_SIZE: Final = MAX_MESSAGE_SIZE - 70
ZERO_HASH: Final = bytes(HASH_SIZE)
SIGNING_TAG: Final = b"dbnet/entry/v1\x00"
HASH_PERSON: Final = b"dbnet/entry/v1"


class _Entry(Shape, array_like=True):
    """``[v, game_id, seq, author, prev_hash, kind, body]``; the body is read by its kind's
    schema once the version and the kind are known."""

    v: Annotated[int, supported(PROTOCOL_VERSIONS, "protocol version")]
    game_id: Hash
    seq: Count
    author: Side
    prev_hash: Hash
    kind: Annotated[
        int,
        Meta(
            ge=EntryKind.OFFER.value,
            le=EntryKind.DISPUTE.value,
            extra=refuse("unknown entry kind {value} (known: 0 to 7)"),
        ),
    ]
    body: Raw


_ENTRY: Final = Schema[_Entry](_Entry, "entry", MAX_ENTRY_SIZE)
_ENTRY_KINDS: Final = tuple(EntryKind)  # by number, without the enum's lookup by value


class Entry(msgspec.Struct, frozen=True, gc=False):
    """One entry of a game's log: what its author signs.

    On the wire: ``[version, game_id, seq, author, prev_hash, kind, body]``.
    ``author`` is 0 (A) or 1 (B); ``prev_hash`` is the previous entry's
    ``entry_hash`` (32 zero bytes for entry 0).
    """

    version: int
    game_id: bytes
    seq: int
    author: int
    prev_hash: bytes
    kind: EntryKind
    body: Body

    def to_wire(self) -> list[object]:
        return [
            self.version,
            self.game_id,
            self.seq,
            int(self.author),
            self.prev_hash,
            int(self.kind),
            self.body.to_wire(),
        ]


class SignedEntry(msgspec.Struct, frozen=True, gc=False):
    """An entry's exact bytes and its author's Ed25519 signature over ``signing_message``."""

    signed: bytes
    signature: bytes

    def to_wire(self) -> list[object]:
        return [self.signed, self.signature]


class _Record(Shape, array_like=True):
    """``[signed, signature]``: an entry's exact bytes and its author's signature."""

    signed: bytes
    signature: Signature


_RECORD: Final = Schema[_Record](_Record, "signed_entry")


def signing_message(signed: bytes) -> bytes:
    """What an entry's author signs: a domain tag and the entry's exact bytes."""
    return SIGNING_TAG + signed


Wire = TypeVar("Wire", bound=msgspec.Struct)


def replace(value: Wire, **changes: object) -> Wire:
    """A copy of ``value`` (an entry, a signed entry or a body) with ``changes``."""
    return msgspec.structs.replace(value, **changes)


def is_frozen_value(value: object) -> bool:
    """Whether ``value`` is one of the wire's immutable values (an entry, a signed entry, a
    body), which a copy may share."""
    return isinstance(value, msgspec.Struct) and value.__struct_config__.frozen


def entry_hash(signed: bytes) -> bytes:
    """The hash of an entry's exact bytes (the signature is not hashed): the next ``prev_hash``."""
    hasher = _ENTRY_HASHER.copy()
    hasher.update(signed)
    return hasher.digest()


_ENTRY_HASHER: Final = hashlib.blake2b(digest_size=HASH_SIZE, person=HASH_PERSON)
"""Copied for each entry: quicker than setting the hash up again."""


def encode_entry(entry: Entry) -> bytes:
    """The canonical bytes of ``entry``, the bytes its author signs.

    Raises:
        DecodeError: if the entry breaks the format (naming the field) or is too large,
            so that nothing is signed that a peer would refuse.
    """
    e = entry
    body = encode(body_shape(e.body))
    data = encode((e.version, e.game_id, e.seq, e.author, e.prev_hash, e.kind, Raw(body)))
    if len(data) > MAX_ENTRY_SIZE:
        raise DecodeError("entry", f"{len(data)} bytes is more than the limit of {MAX_ENTRY_SIZE}")
    # What a peer would refuse is refused here, naming the field: the checks of
    # ``decode_entry`` but its comparisons with the canonical bytes, which these are.
    envelope = _ENTRY.read_own(data)
    _body_schema(envelope).read_own(body).value("entry.body")
    return data


def decode_entry(signed: bytes) -> Entry:
    """The entry in its signed bytes, which must be the entry's one canonical encoding.

    Raises:
        DecodeError: malformed bytes, a schema violation (naming the field), or an
            encoding that is not canonical (longer forms than needed, or map keys not
            in the documented order).
    """
    e = _ENTRY.decode(signed)
    body = _body_schema(e).decode(bytes(e.body)).value("entry.body")
    return Entry(e.v, e.game_id, e.seq, e.author, e.prev_hash, _ENTRY_KINDS[e.kind], body)


def _body_schema(e: _Entry) -> Schema[BodyShape]:
    """The schema of the body of an entry of ``e``'s version and kind (DISPUTE, 7, is
    known from version 4)."""
    schemas = BODY_SCHEMAS[e.v]
    if e.kind >= len(schemas):
        raise DecodeError(
            "entry.kind",
            f"unknown entry kind {e.kind} in protocol version {e.v} (known: 0 to "
            f"{len(schemas) - 1}; {EntryKind(e.kind).name} is version {DISPUTE_VERSION})",
        )
    return schemas[e.kind]


def encode_signed_entry(signed: SignedEntry) -> bytes:
    """The record of a signed entry: ``[signed, signature]``."""
    return encode(_Record(signed.signed, signed.signature))


def decode_signed_entry(data: bytes) -> tuple[SignedEntry, Entry]:
    """A signed entry record and the entry in it. The signature is NOT checked here:
    check it over ``signing_message(signed.signed)`` (the exact received bytes).

    Raises:
        DecodeError: malformed or non-canonical bytes, or a schema violation.
    """
    record = _RECORD.decode(data)
    return SignedEntry(record.signed, record.signature), decode_entry(record.signed)


def sign_entry(entry: Entry, sign: Callable[[bytes], bytes]) -> SignedEntry:
    """``entry`` encoded and signed with ``sign`` (such as ``Identity.sign``)."""
    signed = encode_entry(entry)
    return SignedEntry(signed, sign(signing_message(signed)))
