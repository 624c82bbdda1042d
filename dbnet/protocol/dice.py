"""Fair dice between two players who do not trust each other: commit-reveal hash chains.

Each player keeps a 32-byte secret. From it and a per-game salt they build, for
each *generation* g of N rolls, a chain of N + 1 values by hashing backwards
from a seed: ``v_N = generation_seed(secret, g)``, ``v_(k-1) = link(v_k)``.
The generation's *anchor* ``v_0`` is published first (generation 0's in the
game's genesis entries, the next one when the previous generation runs out);
the link for roll r (position p = r % N of generation g = r // N) is
``v_(p+1)``, and anyone checks it with one hash: ``link(v_(p+1)) == v_p``.

The dice of roll r come from the game id, r and both players' links for r, and
nothing else (``roll_dice``), by rejection sampling. Since both chains are fixed
before any roll, neither player can bias a roll; the protocol (the arming rule)
makes sure neither can see a roll before the decisions it depends on are made.
``docs/dice.md`` specifies every hash byte for byte and lists golden vectors.

Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from dbnet.errors import DbnetError

__all__ = [
    "DEFAULT_CHAIN_LENGTH",
    "Chain",
    "ChainVerifier",
    "DiceError",
    "chain_salt",
    "generation_seed",
    "link",
    "roll_dice",
]

DEFAULT_CHAIN_LENGTH = 1024
"""Links per generation unless the game's OFFER says otherwise."""

GAME_ID_SIZE = 32
PUBLIC_KEY_SIZE = 32
SECRET_SIZE = 32
LINK_SIZE = 32
"""Chain values (seeds, links and anchors) are BLAKE2b-256 digests."""
SALT_SIZE = 16
"""The most BLAKE2b accepts; a shorter salt would be zero-padded, so exactly this is required."""

MAX_GENERATION = 2**32 - 1
"""A generation number is hashed as 4 bytes."""
MAX_ROLL_INDEX = 2**64 - 1
"""A roll index is hashed as 8 bytes."""

ACCEPT_BELOW = 252
"""Digest bytes below this (42 * 6) become a die; the others are skipped."""

SALT_PERSON = b"dbnet/salt/v1"
CHAIN_PERSON = b"dbnet/chain/v1"
SEED_PERSON = b"dbnet/seed/v1"
ROLL_PERSON = b"dbnet/roll/v1"

_GENERATIONS_CACHED = 2
"""A chain keeps the values of this many generations: the current one and the next."""


class DiceError(DbnetError, ValueError):
    """A chain value, anchor or dice input that is malformed or does not verify."""


# --- checks --------------------------------------------------------------------------


def _check_bytes(name: str, value: object, size: int) -> bytes:
    if not isinstance(value, bytes):
        raise DiceError(f"{name} must be bytes, not {type(value).__name__}")
    if len(value) != size:
        raise DiceError(f"{name} must be {size} bytes, not {len(value)}: {value.hex()!r}")
    return value


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    # bool is an int subclass; True is no roll index
    if type(value) is not int:
        raise DiceError(f"{name} must be an int, not {type(value).__name__}: {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise DiceError(f"{name} must be {bound}, not {value}")
    return value


# --- hashes --------------------------------------------------------------------------


def chain_salt(game_id: bytes, public_key: bytes) -> bytes:
    """The 16-byte salt of a player's chain in one game.

    ``BLAKE2b(game_id || public_key, digest_size=16, person="dbnet/salt/v1")``. It
    ties every link to this game and this player, so a chain cannot be reused
    elsewhere.

    Raises:
        DiceError: ``game_id`` or ``public_key`` is not 32 bytes.
    """
    _check_bytes("game id", game_id, GAME_ID_SIZE)
    _check_bytes("public key", public_key, PUBLIC_KEY_SIZE)
    return hashlib.blake2b(game_id + public_key, digest_size=SALT_SIZE, person=SALT_PERSON).digest()


def link(value: bytes, salt: bytes) -> bytes:
    """One step down a chain: ``BLAKE2b(value, digest_size=32, person="dbnet/chain/v1", salt)``.

    Raises:
        DiceError: ``value`` is not 32 bytes or ``salt`` is not 16 bytes.
    """
    _check_bytes("chain value", value, LINK_SIZE)
    _check_bytes("chain salt", salt, SALT_SIZE)
    return _linker(salt)(value)


def _linker(salt: bytes) -> Callable[[bytes], bytes]:
    """``link`` under ``salt`` without its checks (the caller made them), the hash set up
    once for the many links of a chain."""
    start = _chain_hasher(salt)

    def step(value: bytes) -> bytes:
        hasher = start.copy()
        hasher.update(value)
        return hasher.digest()

    return step


def _chain_hasher(salt: bytes) -> hashlib.blake2b:
    """The hash of ``link`` under ``salt`` before any value: copied for each link."""
    return hashlib.blake2b(digest_size=LINK_SIZE, person=CHAIN_PERSON, salt=salt)


def generation_seed(secret: bytes, g: int) -> bytes:
    """The top value ``v_N`` of generation ``g``.

    ``BLAKE2b(secret || g as 4 bytes big-endian, digest_size=32, person="dbnet/seed/v1")``.

    Raises:
        DiceError: ``secret`` is not 32 bytes or ``g`` is not in 0..2**32-1.
    """
    _check_bytes("chain secret", secret, SECRET_SIZE)
    _check_int("generation", g, 0, MAX_GENERATION)
    return hashlib.blake2b(
        secret + g.to_bytes(4, "big"), digest_size=LINK_SIZE, person=SEED_PERSON
    ).digest()


# --- the player's own chain ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chain:
    """A player's hash chain: the secret, the game's salt for this player and N.

    ``anchor(g)`` and ``reveal(r)`` build a generation's N + 1 values on first
    use (N hashes) and then answer from a cache holding the latest two
    generations. The secret never appears in the repr.
    """

    secret: bytes = field(repr=False)
    salt: bytes
    length: int = DEFAULT_CHAIN_LENGTH
    _values: dict[int, tuple[bytes, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        # the secret's own message must not quote it
        if not isinstance(self.secret, bytes) or len(self.secret) != SECRET_SIZE:
            raise DiceError(f"chain secret must be {SECRET_SIZE} bytes")
        _check_bytes("chain salt", self.salt, SALT_SIZE)
        _check_int("chain length", self.length, 1)

    @classmethod
    def create(cls, secret: bytes, salt: bytes, length: int = DEFAULT_CHAIN_LENGTH) -> Chain:
        """The chain of ``secret`` under ``salt`` (from ``chain_salt``) with ``length`` links.

        Raises:
            DiceError: a wrong size or a length below 1.
        """
        return cls(secret, salt, length)

    @classmethod
    def new(cls, salt: bytes, length: int = DEFAULT_CHAIN_LENGTH) -> Chain:
        """A chain with a fresh secret from ``secrets.token_bytes``."""
        return cls(secrets.token_bytes(SECRET_SIZE), salt, length)

    def values(self, g: int) -> tuple[bytes, ...]:
        """Generation ``g``'s values ``(v_0, v_1, ..., v_N)``: anchor first, seed last."""
        cached = self._values.get(g)
        if cached is not None:
            return cached
        value = generation_seed(self.secret, g)
        down = [value]
        append = down.append
        copy = _chain_hasher(self.salt).copy
        for _ in range(self.length):  # ``link`` inline: a call per link costs a sixth more
            hasher = copy()
            hasher.update(value)
            value = hasher.digest()
            append(value)
        down.reverse()
        result = tuple(down)
        while len(self._values) >= _GENERATIONS_CACHED:
            del self._values[min(self._values)]
        self._values[g] = result
        return result

    def anchor(self, g: int) -> bytes:
        """The anchor ``v_0`` of generation ``g``, to publish before any of its links.

        Raises:
            DiceError: ``g`` is not in 0..2**32-1.
        """
        _check_int("generation", g, 0, MAX_GENERATION)
        return self.values(g)[0]

    def reveal(self, r: int) -> bytes:
        """The link for roll ``r``: ``v_(p+1)`` of generation ``r // N``, ``p = r % N``.

        Raises:
            DiceError: ``r`` is not a roll index (0..2**64-1) or is past generation 2**32-1.
        """
        _check_int("roll index", r, 0, MAX_ROLL_INDEX)
        g, p = divmod(r, self.length)
        _check_int("generation", g, 0, MAX_GENERATION)
        return self.values(g)[p + 1]

    def verifier(self, owner: str = "") -> ChainVerifier:
        """A verifier for this chain, as the other player builds it from generation 0's anchor."""
        return ChainVerifier(self.salt, self.length, self.anchor(0), owner=owner)


# --- the other player's chain --------------------------------------------------------


class ChainVerifier:
    """Checks one player's links as they come, in order, each once, with one hash each.

    It knows the salt, N and the anchors published so far, never the secret.
    ``owner`` (for example ``"A"``) only names the player in error messages.
    A failed ``check`` or ``add_anchor`` changes nothing.
    """

    __slots__ = ("_anchors", "_last_value", "_link", "_next_roll", "length", "owner", "salt")

    def __init__(self, salt: bytes, length: int, anchor: bytes, *, owner: str = "") -> None:
        self.salt: bytes = _check_bytes("chain salt", salt, SALT_SIZE)
        self._link = _linker(salt)
        self.length: int = _check_int("chain length", length, 1)
        self.owner = owner
        self._anchors: list[bytes] = [_check_bytes("anchor of generation 0", anchor, LINK_SIZE)]
        self._next_roll = 0
        self._last_value = anchor

    def __repr__(self) -> str:
        return (
            f"<ChainVerifier owner={self.owner!r} length={self.length} "
            f"next_roll={self._next_roll} generations={len(self._anchors)}>"
        )

    @property
    def next_roll(self) -> int:
        """The roll index whose link ``check`` accepts next."""
        return self._next_roll

    @property
    def last_value(self) -> bytes:
        """The last link accepted, or generation 0's anchor before the first."""
        return self._last_value

    @property
    def generations(self) -> int:
        """How many generations' anchors are known (0..generations-1)."""
        return len(self._anchors)

    def _whose(self) -> str:
        return f"player {self.owner}'s " if self.owner else ""

    def _link_name(self, r: int) -> str:
        return f"{self._whose()}link for roll {r}"

    def anchor(self, g: int) -> bytes:
        """The recorded anchor of generation ``g``.

        Raises:
            DiceError: that anchor has not been recorded.
        """
        _check_int("generation", g, 0)
        if g >= len(self._anchors):
            raise DiceError(
                f"{self._whose()}anchor of generation {g} is not known "
                f"(known: generations 0..{len(self._anchors) - 1})"
            )
        return self._anchors[g]

    def add_anchor(self, g: int, anchor: bytes) -> None:
        """Record the anchor of generation ``g``, which must be the next unknown one.

        When it may come (with the link for roll ``g * N - 1``) is the protocol's check.

        Raises:
            DiceError: ``g`` repeats or skips a generation, or ``anchor`` is not 32 bytes.
        """
        _check_int("generation", g, 0, MAX_GENERATION)
        expected = len(self._anchors)
        whose = self._whose()
        if g < expected:
            raise DiceError(
                f"{whose}anchor of generation {g}: already recorded (anchors come once)"
            )
        if g > expected:
            raise DiceError(
                f"{whose}anchor of generation {g}: skips generation {expected}, whose anchor "
                "must come first"
            )
        self._anchors.append(_check_bytes(f"{whose}anchor of generation {g}", anchor, LINK_SIZE))

    def check(self, r: int, value: bytes) -> None:
        """Accept ``value`` as the link for roll ``r``, or raise and change nothing.

        It must be for the next roll of this player, its generation's anchor must
        be known, and ``link(value)`` must equal the anchor (first roll of a
        generation) or the link accepted for roll ``r - 1``.

        Raises:
            DiceError: naming the roll, the player and which condition failed.
        """
        # the messages are built only on failure: a verifier checks every link of a game
        _check_int("roll index", r, 0, MAX_ROLL_INDEX)
        if type(value) is not bytes or len(value) != LINK_SIZE:
            _check_bytes(self._link_name(r), value, LINK_SIZE)
        if r != self._next_roll:
            if r < self._next_roll:
                raise DiceError(
                    f"{self._link_name(r)}: already revealed (links come once, in order; next "
                    f"is roll {self._next_roll})"
                )
            raise DiceError(
                f"{self._link_name(r)}: skips roll {self._next_roll}, whose link must come first"
            )
        g, p = divmod(r, self.length)
        if p == 0:
            if g >= len(self._anchors):
                raise DiceError(
                    f"{self._link_name(r)}: the anchor of generation {g} is not known (it must "
                    f"come with the link for roll {r - 1})"
                )
            previous = self._anchors[g]
        else:
            previous = self._last_value
        if not hmac.compare_digest(self._link(value), previous):
            what = f"the anchor of generation {g}" if p == 0 else f"the link for roll {r - 1}"
            raise DiceError(
                f"{self._link_name(r)} (generation {g}, position {p}): {value.hex()} does not "
                f"hash to {what} (tampered, out of order, or from another generation, game or "
                "player)"
            )
        self._next_roll = r + 1
        self._last_value = value

    def mark(self) -> tuple[int, bytes, int]:
        """Where this verifier stands (next roll, last value, anchors known), for ``rewind``:
        three fields, where ``copy`` builds a whole verifier."""
        return self._next_roll, self._last_value, len(self._anchors)

    def rewind(self, mark: tuple[int, bytes, int]) -> None:
        """Back to ``mark`` (taken from this verifier): the links and anchors accepted
        since are forgotten. Links and anchors are only ever added, so this is exact."""
        self._next_roll, self._last_value, anchors = mark
        del self._anchors[anchors:]

    def copy(self) -> ChainVerifier:
        """An independent copy."""
        twin = ChainVerifier(self.salt, self.length, self._anchors[0], owner=self.owner)
        twin._anchors = list(self._anchors)
        twin._next_roll = self._next_roll
        twin._last_value = self._last_value
        return twin


# --- dice ----------------------------------------------------------------------------


_ROLL_HASHER = hashlib.blake2b(digest_size=32, person=ROLL_PERSON)
"""Copied for each roll: quicker than setting the hash up again."""
_DIE_FACE = bytes(b % 6 + 1 for b in range(256))
"""A digest byte's die, for ``bytes.translate`` (bytes from ACCEPT_BELOW up are deleted)."""
_REJECTED = bytes(range(ACCEPT_BELOW, 256))


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


_INDEX_LENGTH = (8).to_bytes(4, "big")
_LINK_LENGTH = LINK_SIZE.to_bytes(4, "big")
_COUNTER_LENGTH = (4).to_bytes(4, "big")


def roll_dice(
    game_id: bytes, roll_index: int, link_a: bytes, link_b: bytes, count: int
) -> tuple[int, ...]:
    """The ``count`` dice (1..6) of roll ``roll_index`` from both players' links for it.

    For ctr = 0, 1, ...: ``BLAKE2b(person="dbnet/roll/v1", digest_size=32)`` over
    the fields game_id, roll_index (8 bytes BE), link_a, link_b, ctr (4 bytes BE),
    each preceded by its length (4 bytes BE); each digest byte b < 252 gives the
    die ``b % 6 + 1`` and bytes >= 252 are skipped, until there are ``count``.

    Raises:
        DiceError: an id or link that is not 32 bytes, or an index or count out of range.
    """
    if type(game_id) is not bytes or len(game_id) != GAME_ID_SIZE:
        _check_bytes("game id", game_id, GAME_ID_SIZE)
    return _roller(game_id)(roll_index, link_a, link_b, count)


@functools.lru_cache(maxsize=16)
def _roller(game_id: bytes) -> Callable[[int, bytes, bytes, int], tuple[int, ...]]:
    """``roll_dice`` for the rolls of one game (a 32-byte id), its hash set up once with
    the game id: a verifier rolls all of a game's dice, a folder holds many games."""
    start = _ROLL_HASHER.copy()
    start.update(_field(game_id))

    def roll(roll_index: int, link_a: bytes, link_b: bytes, count: int) -> tuple[int, ...]:
        # the messages are built only on failure
        if type(roll_index) is not int or not 0 <= roll_index <= MAX_ROLL_INDEX:
            _check_int("roll index", roll_index, 0, MAX_ROLL_INDEX)
        if not (type(link_a) is type(link_b) is bytes and len(link_a) == len(link_b) == LINK_SIZE):
            _check_bytes(f"player A's link for roll {roll_index}", link_a, LINK_SIZE)
            _check_bytes(f"player B's link for roll {roll_index}", link_b, LINK_SIZE)
        if type(count) is not int or count < 0:
            _check_int(f"dice count of roll {roll_index}", count, 0)
        fields = b"".join(
            (_INDEX_LENGTH, roll_index.to_bytes(8, "big"), _LINK_LENGTH, link_a, _LINK_LENGTH,
             link_b, _COUNTER_LENGTH)
        )  # fmt: skip
        dice = b""
        ctr = 0
        while len(dice) < count:
            hasher = start.copy()
            hasher.update(fields + ctr.to_bytes(4, "big"))
            dice += hasher.digest().translate(_DIE_FACE, _REJECTED)
            ctr += 1
        return tuple(dice[:count])

    return roll
