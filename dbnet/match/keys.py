"""What makes a game unpredictable, and what names it: both identities, both chain
secrets and both nonces (``MatchKeys``): derived from a seed for reproducible games, or
fresh nonces with keys that the machine's owner can make again to resume the game; the
game id and replay header they make with a setup."""

from __future__ import annotations

import datetime
import getpass
import hashlib
import random
import secrets
from dataclasses import dataclass
from typing import Final

from dbnet.engine import GameSetup, Player
from dbnet.protocol.genesis import RULES_VERSION, game_id_for
from dbnet.protocol.identity import Identity
from dbnet.protocol.remote import chain_secret
from dbnet.wire.replay_header import ReplayHeader
from dbnet.wire.schema import NAME_PATTERN
from dbnet.wire.setup import EncodedSetup

_DERIVE_PERSON: Final = b"dbnet/localplay"
_SEAT_TAG: Final = b"dbnet/local-seat/v1\0"
_SEAT_PERSON: Final = b"dbnet/localseat"


def as_name(text: str, fallback: str) -> str:
    """``text`` as a player's name (``NAME_PATTERN``): only its ASCII letters, digits,
    '_', '.' and '-', at most 32; ``fallback`` when nothing usable is left."""
    kept = "".join(ch for ch in text if ch.isascii() and (ch.isalnum() or ch in "_.-"))[:32]
    return kept if NAME_PATTERN.fullmatch(kept) else fallback


def login_name(fallback: str = "player") -> str:
    """This machine's user as a player's name (``fallback`` when the login is unknown or
    has nothing usable): the default name a player signs and is known by, and a
    spectator's (``login_name("spectator")``)."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    return as_name(login, fallback)


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
    secrets: tuple[bytes, bytes] | None
    """Both chain secrets; None: each derived from its identity and the game id, as over
    the network (``chain_secret``), so the owner of the keys can resume the game."""
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
    def for_owner(cls, owner: Identity, seat: Player | None) -> MatchKeys:
        """A game on the owner's machine with fresh nonces: the owner signs ``seat`` with
        their own key; the other seat (a bot's), or both seats when ``seat`` is None (two
        people at one keyboard), get keys derived from the owner's key and the game's
        nonce (``seat_identities``). Chain secrets are derived as over the network, so the
        owner can resume the game from its replay (``recover``)."""
        nonce = secrets.token_bytes(32)
        identities = seat_identities(owner, seat, nonce)
        return cls(identities, None, nonce, secrets.token_bytes(32))

    @classmethod
    def recover(
        cls, owner: Identity, keys: tuple[bytes, bytes], nonce: bytes, joiner_nonce: bytes
    ) -> tuple[MatchKeys, Player | None] | None:
        """The keys ``for_owner`` made for a game with these players' ``keys`` and nonces,
        and the owner's seat (None: both seats were derived, a hotseat game); None when
        ``owner`` made no such game."""
        for seat in (Player.A, Player.B, None):
            identities = seat_identities(owner, seat, nonce)
            if (identities[0].public_key, identities[1].public_key) == keys:
                return cls(identities, None, nonce, joiner_nonce), seat
        return None

    def chain_secrets(self, setup: GameSetup | EncodedSetup) -> tuple[bytes, bytes]:
        """Both players' chain secrets for the game these keys make with ``setup`` (pass
        it encoded, when the game id is needed elsewhere too: ``EncodedSetup.of``)."""
        if self.secrets is not None:
            return self.secrets
        game_id = self.game_id(setup)
        return chain_secret(self.identities[0], game_id), chain_secret(self.identities[1], game_id)

    def game_id(self, setup: GameSetup | EncodedSetup) -> bytes:
        """The id of the game these keys make with ``setup`` (before it is offered)."""
        keys = (self.identities[0].public_key, self.identities[1].public_key)
        data = EncodedSetup.of(setup).data
        return game_id_for(RULES_VERSION, keys, self.nonce, data, self.joiner_nonce)


def seat_identities(
    owner: Identity, seat: Player | None, nonce: bytes
) -> tuple[Identity, Identity]:
    """Both seats' identities in a game on ``owner``'s machine: ``owner`` itself in
    ``seat``, and for every other seat a key only the owner can make again: BLAKE2b-256
    over the owner's (deterministic) Ed25519 signature of the seat and the nonce."""

    def derived(player: Player) -> Identity:
        signature = owner.sign(_SEAT_TAG + player.name.encode() + b"\0" + nonce)
        digest = hashlib.blake2b(signature, digest_size=32, person=_SEAT_PERSON).digest()
        return Identity.from_private_bytes(digest)

    a = owner if seat is Player.A else derived(Player.A)
    b = owner if seat is Player.B else derived(Player.B)
    return a, b


def replay_header(
    keys: MatchKeys, setup: GameSetup | EncodedSetup, created: datetime.datetime
) -> ReplayHeader:
    """The header of the replay of the game ``keys`` make with ``setup``."""
    return ReplayHeader(
        rules=RULES_VERSION,
        game_id=keys.game_id(setup),
        keys=(keys.identities[0].public_key, keys.identities[1].public_key),
        created=created.isoformat().replace("+00:00", "Z"),
    )


def seeded_keys(seed: int) -> MatchKeys:
    """The keys of ``dbnet play --seed N`` (the line interface and the full screen alike)."""
    return MatchKeys.from_seed(f"dbnet-play:{seed}".encode())


def local_keys(seed: int | None, seat: Player | None) -> tuple[MatchKeys, random.Random]:
    """The keys of a new game on this machine and its bot's randomness: from ``seed``
    (reproducible), else for the machine's owner (their identity, created if needed) in
    ``seat`` (None: two people at one keyboard, neither signing with the owner's key)."""
    if seed is not None:
        return seeded_keys(seed), bot_random(seed)
    return MatchKeys.for_owner(Identity.load_or_create(), seat), bot_random(None)


def bot_random(seed: int | None) -> random.Random:
    """The bot's randomness in ``dbnet play``: from ``seed``, else unpredictable."""
    return random.Random() if seed is None else random.Random(f"dbnet-play-bot:{seed}")
