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
from dataclasses import dataclass, replace
from typing import Final

from dbnet.engine.canonical import setup_bytes
from dbnet.engine.choices import (
    ChanceKind,
    ChanceRequest,
    CommitChoice,
    Decision,
    DecisionKind,
    Pending,
    RevealChoice,
)
from dbnet.engine.model import PLAYERS, Aspect, GameSetup, MiniatureDef, PackSet, Player, Warband
from dbnet.engine.rules import (
    INERT,
    MAX_COPIES,
    MAX_WARBAND,
    Breach,
    playable_abilities,
    warband_breaches,
)
from dbnet.errors import DataError, IllegalChoiceError, InvalidChoiceError

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
COMMIT_SIZE: Final = 32
"""The bytes of a warband commitment (a SHA-256)."""

_SEED_TAG: Final = b"dbnet/limited/pools/v1"
_STREAM_TAG: Final = b"dbnet/limited/stream/v1"
_COMMIT_TAG: Final = b"dbnet/limited/warband/v1"


def check_pack_set(packs: PackSet) -> None:
    """Refuse a pack set with a rarity that has no miniature (no pack could be drawn)."""
    for i, word in enumerate(RARITIES):
        if not packs.of(i):
            raise ValueError(f"the pack set has no {word} miniature")


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def pool_seed(fmt: str, context: bytes, dice: Sequence[int]) -> bytes:
    """SHA-256 of the tag, the format, the context (in a game: the SHA-256 of the offered
    setup's canonical bytes, docs/state-hash.md) and the pack dice (one byte each)."""
    check_format(fmt)
    if len(dice) != PACK_DICE or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"the pack roll is {PACK_DICE} dice from 1 to 6, got {tuple(dice)!r}")
    message = (
        _field(_SEED_TAG) + _field(fmt.encode("ascii")) + _field(context) + _field(bytes(dice))
    )
    return hashlib.sha256(message).digest()


class _Stream:
    """Uniform draws from SHA-256 in counter mode: block ``k`` is
    SHA-256(tag || seed || k as 8 bytes), read as 4-byte big-endian words."""

    __slots__ = ("_counter", "_seed", "_words")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._words: list[int] = []

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
    fmt: str, pack_set: PackSet, context: bytes, dice: Sequence[int]
) -> tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]]:
    """Each player's pool: A opens its packs, then B; each pack draws its rares, then its
    uncommons, then its commons, each uniformly (with replacement) from the set's
    miniatures of that rarity. A pool lists its miniatures in the order drawn."""
    check_pack_set(pack_set)
    stream = _Stream(pool_seed(fmt, context, dice))
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


# --- the build phase of a Limited game -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Build:
    """Where a Limited game's build phase is: the pools once the pack dice are rolled, the
    commitments made (A's, then B's), the warbands revealed (A's, then B's). Immutable: each
    step makes a new one."""

    context: bytes
    """The SHA-256 of the offered setup's canonical bytes: the pools' context."""
    allow_unimplemented: bool = False
    pools: tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]] | None = None
    commits: tuple[bytes, ...] = ()
    warbands: tuple[tuple[MiniatureDef, ...], ...] = ()

    def pending(self) -> Pending:
        """The pack roll, then A's and B's commitments, then A's and B's reveals."""
        if self.pools is None:
            return ChanceRequest(ChanceKind.PACKS, PACK_DICE)
        if len(self.commits) < 2:
            return Decision(PLAYERS[len(self.commits)], DecisionKind.COMMIT)
        return Decision(PLAYERS[len(self.warbands)], DecisionKind.REVEAL)

    def hash_bytes(self) -> bytes:
        """The build phase's part of the state hash (docs/limited.md): a tag, then each
        pool's slugs, each commitment and each revealed warband's slugs, length-prefixed."""
        parts = [_field(b"dbnet/limited/build/v1")]
        pools = self.pools if self.pools is not None else ()
        parts.append(len(pools).to_bytes(4, "big"))
        for pool in pools:
            parts.append(_slugs(pool))
        parts.append(len(self.commits).to_bytes(4, "big"))
        parts += [_field(c) for c in self.commits]
        parts.append(len(self.warbands).to_bytes(4, "big"))
        parts += [_slugs(w) for w in self.warbands]
        return b"".join(parts)


def _slugs(minis: Sequence[MiniatureDef]) -> bytes:
    return len(minis).to_bytes(4, "big") + b"".join(_field(m.slug.encode()) for m in minis)


def start_build(setup: GameSetup, allow_unimplemented: bool) -> Build:
    """The build phase of a Limited setup, once the setup is checked: a known format, a
    pack set with every rarity and unique slugs, every pack miniature playable (unless
    ``allow_unimplemented``), and empty warbands (DataError naming what is wrong)."""
    limited = setup.limited
    assert limited is not None
    where = "the Limited setup"
    if limited.format not in FORMATS:
        raise DataError(where, f"unknown format {limited.format!r}")
    if limited.pools is not None:
        raise DataError(where, "an offered Limited setup holds no pools")
    for player, warband in zip(PLAYERS, setup.warbands, strict=True):
        if warband.minis:
            raise DataError(where, f"{player.name}'s warband must be empty until it is built")
    slugs: set[str] = set()
    for i, word in enumerate(RARITIES):
        if not limited.packs.of(i):
            raise DataError(where, f"the pack set has no {word} miniature")
        for mini in limited.packs.of(i):
            if mini.slug in slugs:
                raise DataError(where, f"the pack set holds {mini.slug!r} twice")
            slugs.add(mini.slug)
            if not allow_unimplemented and any(a is INERT for a in playable_abilities(mini)):
                raise DataError(where, f"the pack set's {mini.name} has an ability not played")
    context = hashlib.sha256(setup_bytes(setup)).digest()
    return Build(context, allow_unimplemented)


def rolled(setup: GameSetup, build: Build, dice: Sequence[int]) -> Build:
    """The build once the pack dice are in: each player's pool drawn."""
    limited = setup.limited
    assert limited is not None
    assert build.pools is None
    pools = derive_pools(limited.format, limited.packs, build.context, dice)
    return replace(build, pools=pools)


def check(setup: GameSetup, build: Build, choice: object) -> Build:
    """The build after ``choice`` by the player who owes it; raise (and change nothing) if
    it is not legal: a commitment must be 32 bytes; a reveal must name miniatures of the
    player's pool (copies counted against it, 600.6), keep the rules of 600, and match
    the player's commitment."""
    pending = build.pending()
    if not isinstance(pending, Decision):
        raise IllegalChoiceError(f"the game waits for the {PACK_DICE} pack dice, not {choice!r}")
    player = pending.player
    if pending.kind is DecisionKind.COMMIT:
        if not isinstance(choice, CommitChoice):
            raise IllegalChoiceError(f"{player.name} owes a warband commitment, not {choice!r}")
        if len(choice.digest) != COMMIT_SIZE:
            raise InvalidChoiceError(f"a commitment is {COMMIT_SIZE} bytes")
        return replace(build, commits=(*build.commits, choice.digest))
    if not isinstance(choice, RevealChoice):
        raise IllegalChoiceError(f"{player.name} owes the reveal of its warband, not {choice!r}")
    assert build.pools is not None
    minis = reveal_minis(setup, build.pools[player], choice.slugs, player)
    breaches = limited_breaches(minis, build.pools[player])
    if breaches:
        raise IllegalChoiceError(f"{player.name}'s warband breaks {breaches[0]}")
    if len(choice.salt) != SALT_SIZE:
        raise InvalidChoiceError(f"a reveal's salt is {SALT_SIZE} bytes, got {len(choice.salt)}")
    if warband_commitment(minis, choice.salt) != build.commits[player]:
        raise IllegalChoiceError(
            f"{player.name}'s warband and salt do not match {player.name}'s commitment"
        )
    return replace(build, warbands=(*build.warbands, minis))


def reveal_minis(
    setup: GameSetup, pool: Sequence[MiniatureDef], slugs: Sequence[str], player: Player
) -> tuple[MiniatureDef, ...]:
    """The miniatures ``slugs`` name: of ``pool`` where it has them, else of the pack set
    (``check`` then refuses them, naming each), IllegalChoiceError for a slug of neither."""
    limited = setup.limited
    assert limited is not None
    known = {m.slug: m for i in range(len(RARITIES)) for m in limited.packs.of(i)}
    known.update((m.slug, m) for m in pool)
    out = []
    for slug in slugs:
        mini = known.get(slug)
        if mini is None:
            raise IllegalChoiceError(
                f"{player.name}'s warband names {slug!r}, which is no miniature of the pack set"
            )
        out.append(mini)
    return tuple(out)


def built_setup(setup: GameSetup, build: Build) -> GameSetup:
    """The setup the game is played with once both warbands are revealed: the offered
    setup's map, options and warband names, the revealed warbands, and the pools."""
    limited = setup.limited
    assert limited is not None
    assert build.pools is not None
    assert len(build.warbands) == 2
    warbands = (
        Warband(setup.warbands[0].name, build.warbands[0]),
        Warband(setup.warbands[1].name, build.warbands[1]),
    )
    return replace(setup, warbands=warbands, limited=replace(limited, pools=build.pools))
