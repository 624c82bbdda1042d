"""Limited play (rule 600.6): each player's pool of miniatures from packs, drawn from
dice, and the checks of a warband built from a pool. ``docs/limited.md`` specifies
every step here precisely enough to reimplement it.

The procedure is deterministic: the pools depend only on the format, the pack set
(which miniatures of each rarity the packs are drawn from, in a fixed order), the
game id and the pack dice (the joint commit-reveal roll of both players, so neither
can bias or foresee a pool). Only ``hashlib`` supplies the stream: no ``random``, no
floats, no iteration over sets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from dbnet.engine.model import Aspect, MiniatureDef, Player
from dbnet.engine.rules import MAX_COPIES, MAX_WARBAND, Breach, warband_breaches

RARITIES: Final = ("rare", "uncommon", "common")
"""The rarities, in the order a pack draws them."""

BOOSTER: Final = (1, 2, 4)
"""A booster pack: 7 miniatures, 1 rare, 2 uncommon, 4 common (by ``RARITIES``)."""
STARTER: Final = (2, 5, 9)
"""A starter set: 16 random miniatures. Our profile is the booster's 1:2:4 scaled to 16
by largest remainders (16/7 times 1, 2, 4 is 2.29, 4.57, 9.14): 2 rare, 5 uncommon,
9 common."""

FORMATS: Final[dict[str, tuple[tuple[int, int, int], ...]]] = {
    "3-boosters": (BOOSTER, BOOSTER, BOOSTER),
    "starter+booster": (STARTER, BOOSTER),
}
"""Each Limited format (600.6) and the packs each player opens, in order."""

PACK_DICE: Final = 48
"""The dice of the pack roll: 48 d6 hold 48 log2(6) > 124 bits."""

SALT_SIZE: Final = 32
"""The bytes of a warband commitment's salt."""

_SEED_TAG: Final = b"dbnet/limited/pools/v1"
_STREAM_TAG: Final = b"dbnet/limited/stream/v1"
_COMMIT_TAG: Final = b"dbnet/limited/warband/v1"


@dataclass(frozen=True, slots=True)
class PackSet:
    """The miniatures packs are drawn from, by rarity, each tuple in a fixed order (the
    catalog's): a draw picks an index into one of them."""

    name: str
    rare: tuple[MiniatureDef, ...]
    uncommon: tuple[MiniatureDef, ...]
    common: tuple[MiniatureDef, ...]

    def of(self, rarity: int) -> tuple[MiniatureDef, ...]:
        """The miniatures of rarity ``rarity`` (an index into ``RARITIES``)."""
        return (self.rare, self.uncommon, self.common)[rarity]

    def check(self) -> None:
        """Refuse a set with a rarity that has no miniature (a pack could not be drawn)."""
        for i, word in enumerate(RARITIES):
            if not self.of(i):
                raise ValueError(f"pack set {self.name!r} has no {word} miniature")


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def pool_seed(fmt: str, game_id: bytes, dice: Sequence[int]) -> bytes:
    """SHA-256 of the tag, the format, the game id and the pack dice (one byte each)."""
    check_format(fmt)
    if len(dice) != PACK_DICE or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"the pack roll is {PACK_DICE} dice from 1 to 6, got {tuple(dice)!r}")
    message = (
        _field(_SEED_TAG) + _field(fmt.encode("ascii")) + _field(game_id) + _field(bytes(dice))
    )
    return hashlib.sha256(message).digest()


class _Stream:
    """Uniform draws from SHA-256 in counter mode: block ``k`` is
    SHA-256(tag || seed || k as 8 bytes), read as 4-byte big-endian words."""

    __slots__ = ("_block", "_counter", "_seed", "_words")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._words: list[int] = []
        self._block = 0

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(
                _field(_STREAM_TAG) + _field(self._seed) + self._counter.to_bytes(8, "big")
            ).digest()
            self._counter += 1
            self._words = [int.from_bytes(digest[i : i + 4], "big") for i in range(28, -1, -4)]
        return self._words.pop()  # the words of a block in order: the first popped is bytes 0-3

    def below(self, n: int) -> int:
        """A uniform integer in [0, n): rejection sampling on 32-bit words."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            word = self._word()
            if word < limit:
                return word % n


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(
            f"unknown Limited format {fmt!r}; the formats are {', '.join(sorted(FORMATS))}"
        )


def derive_pools(
    fmt: str, pack_set: PackSet, game_id: bytes, dice: Sequence[int]
) -> tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]]:
    """Each player's pool: A opens its packs, then B; each pack draws its rares, then its
    uncommons, then its commons, each uniformly (with replacement) from the set's
    miniatures of that rarity. A pool lists its miniatures in the order drawn."""
    pack_set.check()
    stream = _Stream(pool_seed(fmt, game_id, dice))
    pools: list[tuple[MiniatureDef, ...]] = []
    for _player in (Player.A, Player.B):
        pool: list[MiniatureDef] = []
        for pack in FORMATS[fmt]:
            for rarity, count in enumerate(pack):
                minis = pack_set.of(rarity)
                for _ in range(count):
                    pool.append(minis[stream.below(len(minis))])
        pools.append(tuple(pool))
    return pools[0], pools[1]


def pool_breaches(minis: Iterable[MiniatureDef], pool: Sequence[MiniatureDef]) -> list[Breach]:
    """How a warband of ``minis`` breaks 600.6 with ``pool``: each miniature not in the
    pool, or with more copies than the pool holds, named, in the warband's order. A
    miniature is the same as one in the pool when the whole card is equal."""
    have: dict[MiniatureDef, int] = {}
    for mini in pool:
        have[mini] = have.get(mini, 0) + 1
    want: dict[MiniatureDef, int] = {}
    for mini in minis:
        want[mini] = want.get(mini, 0) + 1
    breaches = []
    for mini, n in want.items():  # a dict keeps insertion order: the warband's
        held = have.get(mini, 0)
        if not held:
            breaches.append(Breach("600.6", f"{mini.name!r} is not in the pool"))
        elif n > held:
            breaches.append(
                Breach("600.6", f"{n} copies of {mini.name!r}, but the pool holds {held}")
            )
    return breaches


def limited_breaches(minis: Sequence[MiniatureDef], pool: Sequence[MiniatureDef]) -> list[Breach]:
    """Every rule a Limited warband breaks: 600.6 against its pool, then the normal rules
    of 600 (``warband_breaches``)."""
    return pool_breaches(minis, pool) + warband_breaches((mini, 1) for mini in minis)


def warband_commitment(minis: Sequence[MiniatureDef], salt: bytes) -> bytes:
    """SHA-256(tag || salt || the number of miniatures (4 bytes) || each slug), each part
    length-prefixed: what a player commits to before either warband is revealed."""
    if len(salt) != SALT_SIZE:
        raise ValueError(f"a commitment's salt is {SALT_SIZE} bytes, got {len(salt)}")
    parts = [_field(_COMMIT_TAG), _field(salt), len(minis).to_bytes(4, "big")]
    parts += [_field(mini.slug.encode("utf-8")) for mini in minis]
    return hashlib.sha256(b"".join(parts)).digest()


def auto_build(pool: Sequence[MiniatureDef]) -> tuple[MiniatureDef, ...]:
    """The automatic warband of a pool (bots, and a player whose time runs out).

    The pool's two main aspects are the two with the most aspect symbols among its
    miniatures (ties: Valor, Madness, Fear, Passion). Every miniature of the pool is
    ranked by: 0 if all its aspect symbols are of the main aspects, else 1; creatures
    before locations; lower spawn cost first; slug; then pool order. The warband takes
    them in that order, skipping a fourth copy (600.3) and any that would break a rule of
    600, up to 16 (600.1). Deterministic, and legal for every pool.
    """
    symbols = [0, 0, 0, 0]
    for mini in pool:
        for aspect in mini.aspects:
            symbols[aspect] += 1
    ranked = sorted(Aspect, key=lambda a: (-symbols[a], int(a)))
    main = (ranked[0], ranked[1])

    def key(item: tuple[int, MiniatureDef]) -> tuple[int, int, int, str, int]:
        i, mini = item
        off = 0 if all(a in main for a in mini.aspects) else 1
        return (off, int(mini.kind), mini.spawn_cost, mini.slug, i)

    chosen: list[MiniatureDef] = []
    copies: dict[str, int] = {}
    for _, mini in sorted(enumerate(pool), key=key):
        if len(chosen) == MAX_WARBAND:
            break
        if copies.get(mini.slug, 0) == MAX_COPIES:
            continue
        if warband_breaches((m, 1) for m in [*chosen, mini]):
            continue
        chosen.append(mini)
        copies[mini.slug] = copies.get(mini.slug, 0) + 1
    return tuple(chosen)
