"""What makes a game unpredictable, and what names it: both identities, both chain
secrets and both nonces (``MatchKeys``), derived from a seed for reproducible games or
drawn fresh; the game id and replay header they make with a setup."""

from __future__ import annotations

import datetime
import hashlib
import secrets
from dataclasses import dataclass
from typing import Final

from dbnet.engine import (
    GameSetup,
)
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import game_id_for
from dbnet.protocol.peer import RULES_VERSION
from dbnet.wire import codec
from dbnet.wire.codec import ReplayHeader

_DERIVE_PERSON: Final = b"dbnet/localplay"


def derive(seed: bytes, what: str) -> bytes:
    """32 bytes fixed by ``seed`` and ``what``: BLAKE2b-256(person="dbnet/localplay") over
    ``what`` (UTF-8), a zero byte and ``seed``."""
    data = what.encode() + b"\0" + seed
    return hashlib.blake2b(data, digest_size=32, person=_DERIVE_PERSON).digest()


@dataclass(frozen=True, slots=True)
class MatchKeys:
    """Both players' identities, chain secrets and nonces: with the setup and the decisions
    they fix the game, dice included."""

    identities: tuple[Identity, Identity]
    secrets: tuple[bytes, bytes]
    nonce: bytes
    joiner_nonce: bytes

    @classmethod
    def from_seed(cls, seed: bytes) -> MatchKeys:
        """Everything derived from ``seed`` (the same seed, the same game id and dice)."""
        return cls(
            identities=(
                Identity.from_private_bytes(derive(seed, "identity A")),
                Identity.from_private_bytes(derive(seed, "identity B")),
            ),
            secrets=(derive(seed, "chain secret A"), derive(seed, "chain secret B")),
            nonce=derive(seed, "nonce"),
            joiner_nonce=derive(seed, "joiner nonce"),
        )

    @classmethod
    def fresh(cls, identities: tuple[Identity | None, Identity | None] = (None, None)) -> MatchKeys:
        """Fresh secrets and nonce from ``secrets``; a fresh identity for each seat not given."""
        a, b = identities
        return cls(
            identities=(a or Identity.generate(), b or Identity.generate()),
            secrets=(secrets.token_bytes(32), secrets.token_bytes(32)),
            nonce=secrets.token_bytes(32),
            joiner_nonce=secrets.token_bytes(32),
        )

    def game_id(self, setup: GameSetup) -> bytes:
        """The id of the game these keys make with ``setup`` (before it is offered)."""
        keys = (self.identities[0].public_key, self.identities[1].public_key)
        setup_bytes = codec.encode(codec.setup_to_wire(setup))
        return game_id_for(RULES_VERSION, keys, self.nonce, setup_bytes, self.joiner_nonce)


def replay_header(keys: MatchKeys, setup: GameSetup, created: datetime.datetime) -> ReplayHeader:
    """The header of the replay of the game ``keys`` make with ``setup``."""
    return ReplayHeader(
        rules=RULES_VERSION,
        game_id=keys.game_id(setup),
        keys=(keys.identities[0].public_key, keys.identities[1].public_key),
        created=created.isoformat().replace("+00:00", "Z"),
    )
