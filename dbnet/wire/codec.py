"""The names of the wire format that ``dbnet/net/`` uses, under their old roof.

The codec was split by shape family (issue 34): any msgpack value (``values``), the
schema idiom and the shared field types (``schema``), the versions (``versions``), the
setup (``setup``), the entry bodies (``bodies``), entries and their records
(``entries``) and the replay header (``replay_header``). Import from those.

This facade is kept, for ``dbnet/net/`` and ``tests/net/`` alone, while ``net/`` is
being restructured on other branches (the session split by phase, a new message of the
channel): their code says ``codec.X``, and rewriting every such use here would collide
with theirs. Once they land, each ``codec.X`` there becomes an import from its module
and this file goes.
"""

from __future__ import annotations

from msgspec import Meta

from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    DisputeBody,
    EntryKind,
    FinalBody,
    OfferBody,
    PlayBody,
    ResignBody,
)
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    replace,
    sign_entry,
)
from dbnet.wire.replay_header import ReplayHeader, encode_replay_header
from dbnet.wire.schema import NAME_PATTERN, Hash, Name, Schema, Shape, Signature, refuse
from dbnet.wire.setup import WarbandShape
from dbnet.wire.values import MAX_MESSAGE_SIZE, encode
from dbnet.wire.versions import DISPUTE_VERSION

__all__ = [
    "DISPUTE_VERSION", "MAX_MESSAGE_SIZE", "NAME_PATTERN", "AcceptBody", "Body", "ClaimBody",
    "CosignBody", "DisputeBody", "Entry", "EntryKind", "FinalBody", "Hash", "Meta", "Name",
    "OfferBody", "PlayBody", "ReplayHeader", "ResignBody", "Schema", "Shape", "Signature",
    "SignedEntry", "WarbandShape", "decode_signed_entry", "encode", "encode_replay_header",
    "encode_signed_entry", "refuse", "replace", "sign_entry",
]  # fmt: skip
