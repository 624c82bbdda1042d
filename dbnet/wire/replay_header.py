"""The replay header: record 0 of a replay file (docs/replay-format.md), not signed, so
read in any key order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final

from msgspec import Meta

from dbnet.errors import DecodeError
from dbnet.wire.schema import Count, Hash, Rules, Schema, Shape, check_keys, supported
from dbnet.wire.values import encode
from dbnet.wire.versions import PROTOCOL_VERSION, REPLAY_FORMAT, REPLAY_FORMATS

MAX_CREATED_LEN: Final = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayHeader:
    """Record 0 of a replay file. ``created`` (ISO 8601) is informative only."""

    format: int = REPLAY_FORMAT
    protocol: int = PROTOCOL_VERSION
    rules: str
    game_id: bytes
    keys: tuple[bytes, bytes]
    created: str


class _Header(Shape):
    format: Annotated[int, supported(REPLAY_FORMATS, "replay format")]
    protocol: Count
    rules: Rules
    game_id: Hash
    keys: tuple[Hash, Hash]
    created: Annotated[str, Meta(max_length=MAX_CREATED_LEN)]

    def value(self, path: str) -> ReplayHeader:
        if self.protocol != REPLAY_FORMATS[self.format]:
            raise DecodeError(
                f"{path}.protocol",
                f"replay format {self.format} holds protocol version "
                f"{REPLAY_FORMATS[self.format]} entries, not {self.protocol}",
            )
        check_keys(self.keys, f"{path}.keys")
        return ReplayHeader(
            format=self.format,
            protocol=self.protocol,
            rules=self.rules,
            game_id=self.game_id,
            keys=self.keys,
            created=self.created,
        )


_HEADER: Final = Schema[_Header](_Header, "header", canonical=False)
"""The header is not signed: a reader accepts any key order (docs/replay-format.md)."""


def encode_replay_header(header: ReplayHeader) -> bytes:
    """The bytes of record 0 of a replay file (checked like a received header)."""
    h = header
    data = encode(_Header(h.format, h.protocol, h.rules, h.game_id, h.keys, h.created))
    decode_replay_header(data)
    return data


def decode_replay_header(data: bytes) -> ReplayHeader:
    """The replay header in record 0 of a replay file."""
    return _HEADER.decode(data).value("header")
