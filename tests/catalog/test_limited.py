"""Limited play (600.6, docs/limited.md): rarities in the data, the pack derivation and
its distribution, pools checked against warbands, the automatic build, commitments."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from dbnet.catalog import Catalog, load_catalog
from dbnet.catalog.index import parse_catalog
from dbnet.catalog.packs import LIMITED_SET, pack_set
from dbnet.engine.limited import (
    BOOSTER,
    FORMATS,
    PACK_DICE,
    RARITIES,
    STARTER,
    auto_build,
    derive_pools,
    limited_breaches,
    pool_breaches,
    pool_seed,
    warband_commitment,
)
from dbnet.engine.model import MiniatureDef, PackSet
from dbnet.engine.rules import warband_breaches
from dbnet.errors import DataError

# A fixed set of seeds: the statistics below are computed, never sampled afresh.
SEEDS = 400


def _inputs(i: int) -> tuple[bytes, list[int]]:
    """The game id and pack dice of seed ``i``: fixed, spread over the whole range."""
    game_id = hashlib.sha256(b"limited test %d" % i).digest()
    dice = [hashlib.sha256(game_id + bytes([k])).digest()[0] % 6 + 1 for k in range(PACK_DICE)]
    return game_id, dice


@pytest.fixture(scope="module")
def packs() -> PackSet:
    return pack_set()


def _rarity(packs: PackSet, mini: MiniatureDef) -> str:
    for i, word in enumerate(RARITIES):
        if mini in packs.of(i):
            return word
    raise AssertionError(mini.name)


# --- the data --------------------------------------------------------------------------


def test_every_original_has_a_rarity_by_cost_and_no_real_miniature_has_one(
    catalog: Catalog,
) -> None:
    for entry in catalog.entries:
        mini = entry.mini
        if mini.official:
            assert entry.rarity is None, mini.name  # never invented for a real miniature
            continue
        assert mini.set_name == LIMITED_SET
        cost = mini.spawn_cost
        expected = "common" if cost <= 4 else "uncommon" if cost <= 7 else "rare"
        assert entry.rarity == expected, mini.name


def test_each_rarity_has_enough_miniatures_for_a_pack(packs: PackSet) -> None:
    assert (len(packs.rare), len(packs.uncommon), len(packs.common)) == (23, 32, 33)
    for pack in (BOOSTER, STARTER):
        for i, count in enumerate(pack):
            assert len(packs.of(i)) >= count


def test_a_bad_rarity_is_refused_naming_the_field() -> None:
    text = (
        '[[mini]]\nname = "X"\ntype = "location"\nspawn_cost = 1\naspects = []\nrarity = "mythic"\n'
    )
    with pytest.raises(DataError, match="rarity"):
        parse_catalog(text, "t.toml")


def test_a_set_without_a_rarity_cannot_make_packs(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="has no rare miniature"):
        pack_set(catalog, "Dreamblade")


# --- the derivation --------------------------------------------------------------------


def test_pack_contents_follow_the_format_exactly(packs: PackSet) -> None:
    for fmt, pack_list in FORMATS.items():
        for i in range(50):
            game_id, dice = _inputs(i)
            for pool in derive_pools(fmt, packs, game_id, dice):
                expected = [
                    RARITIES[r] for pack in pack_list for r, n in enumerate(pack) for _ in range(n)
                ]
                assert [_rarity(packs, m) for m in pool] == expected
    assert sum(BOOSTER) == 7
    assert sum(STARTER) == 16


def test_the_pools_are_the_same_for_the_same_inputs_and_differ_otherwise(packs: PackSet) -> None:
    game_id, dice = _inputs(1)
    first = derive_pools("3-boosters", packs, game_id, dice)
    assert derive_pools("3-boosters", pack_set(load_catalog()), game_id, list(dice)) == first
    other_id = derive_pools("3-boosters", packs, _inputs(2)[0], dice)
    other_dice = derive_pools("3-boosters", packs, game_id, [dice[0] % 6 + 1, *dice[1:]])
    assert other_id != first
    assert other_dice != first
    assert first[0] != first[1]


def test_golden_vector(packs: PackSet) -> None:
    """docs/limited.md quotes this vector: game id 32 zero bytes, 48 dice all 1."""
    seed = pool_seed("3-boosters", bytes(32), [1] * PACK_DICE)
    assert seed.hex() == GOLDEN_SEED
    a, b = derive_pools("3-boosters", packs, bytes(32), [1] * PACK_DICE)
    assert [m.slug for m in a[:7]] == GOLDEN_A_FIRST_BOOSTER
    assert [m.slug for m in b[:7]] == GOLDEN_B_FIRST_BOOSTER


def test_bad_dice_and_formats_are_refused(packs: PackSet) -> None:
    with pytest.raises(ValueError, match="48 dice"):
        derive_pools("3-boosters", packs, bytes(32), [1] * 47)
    with pytest.raises(ValueError, match="48 dice"):
        derive_pools("3-boosters", packs, bytes(32), [7] * 48)
    with pytest.raises(ValueError, match="unknown Limited format 'sealed'"):
        derive_pools("sealed", packs, bytes(32), [1] * 48)


def test_draws_are_uniform_within_each_rarity(packs: PackSet) -> None:
    """A chi-square test of each rarity's draws over a fixed seed set: no miniature is
    favoured. With a fixed seed set the statistic is a fixed number, so the test is not
    flaky; the bound is the 0.999 quantile for the degrees of freedom, roughly."""
    counts: list[Counter[str]] = [Counter(), Counter(), Counter()]
    for i in range(SEEDS):
        game_id, dice = _inputs(i)
        for pool in derive_pools("3-boosters", packs, game_id, dice):
            for mini in pool:
                counts[RARITIES.index(_rarity(packs, mini))][mini.slug] += 1
    for r, word in enumerate(RARITIES):
        minis = packs.of(r)
        total = sum(counts[r].values())
        assert total == SEEDS * 2 * 3 * BOOSTER[r], word
        expected = total / len(minis)
        chi2 = sum((counts[r][m.slug] - expected) ** 2 / expected for m in minis)
        dof = len(minis) - 1
        assert chi2 < dof + 4.5 * (2 * dof) ** 0.5, (word, chi2)
        assert len(counts[r]) == len(minis)  # every miniature of the rarity comes up


def test_the_rarity_profile_of_the_pools_matches_the_packs(packs: PackSet) -> None:
    for fmt, pack_list in FORMATS.items():
        seen = Counter[str]()
        for i in range(100):
            game_id, dice = _inputs(i)
            for pool in derive_pools(fmt, packs, game_id, dice):
                seen.update(_rarity(packs, m) for m in pool)
        per_pool = [sum(pack[r] for pack in pack_list) for r in range(3)]
        assert [seen[w] for w in RARITIES] == [200 * n for n in per_pool]


# --- checking a warband against its pool (600.6) and rule 600 --------------------------


def test_a_miniature_outside_the_pool_is_named(packs: PackSet) -> None:
    pool = derive_pools("3-boosters", packs, *_inputs(3))[0]
    outsider = next(m for m in packs.common if m not in pool)
    breaches = pool_breaches([pool[0], outsider], pool)
    assert [str(b) for b in breaches] == [f"600.6: {outsider.name!r} is not in the pool"]


def test_copies_are_counted_against_the_pool(packs: PackSet) -> None:
    cub = next(m for m in packs.common if m.slug == "emberfang-cub")
    wisp = next(m for m in packs.common if m.slug == "murmur-wisp")
    pool = (cub, cub, wisp)
    assert pool_breaches([cub, wisp, cub], pool) == []
    assert [str(b) for b in pool_breaches([cub, cub, cub], pool)] == [
        "600.6: 3 copies of 'Emberfang Cub', but the pool holds 2"
    ]


def test_the_normal_rules_of_600_apply_to_a_limited_warband(packs: PackSet) -> None:
    cub = next(m for m in packs.common if m.slug == "emberfang-cub")
    pool = (cub,) * 20
    # 600.3: at most three copies, even when the pool holds more.
    assert [b.rule for b in limited_breaches([cub] * 4, pool)] == ["600.3"]
    # 600.1: at most 16 miniatures.
    others = [m for m in packs.common if m is not cub][:14]
    rules = [b.rule for b in limited_breaches([*others, cub, cub, cub], (*others, *pool))]
    assert rules == ["600.1"]
    # 600.2: any aspect combination is allowed.
    mixed = [packs.common[0], packs.uncommon[5], packs.rare[7]]
    assert limited_breaches(mixed, mixed) == []


def test_the_automatic_build_is_legal_and_deterministic(packs: PackSet) -> None:
    for fmt in FORMATS:
        for i in range(60):
            for pool in derive_pools(fmt, packs, *_inputs(i)):
                built = auto_build(pool)
                assert built == auto_build(pool)
                assert limited_breaches(built, pool) == []
                assert warband_breaches((m, 1) for m in built) == []
                assert len(built) == 16
                assert any(m.is_creature for m in built)


def test_a_commitment_binds_the_warband_and_its_order(packs: PackSet) -> None:
    a, b = packs.common[0], packs.common[1]
    salt = bytes(range(32))
    commit = warband_commitment([a, b], salt)
    assert commit == warband_commitment((a, b), salt)
    assert commit != warband_commitment([b, a], salt)
    assert commit != warband_commitment([a, b], bytes(32))
    assert commit != warband_commitment([a], salt)
    with pytest.raises(ValueError, match="32 bytes"):
        warband_commitment([a], bytes(16))


GOLDEN_SEED = "5f43b8108be235785fb57f2d7a90f66f8814b59f99c7ea8e012f23f3ec24a897"
GOLDEN_A_FIRST_BOOSTER = [
    "wrecking-behemoth", "bloodfang-reaver", "starfall-observatory", "skittering-terror",
    "gloomfen-mire", "dreadmoth-swarm", "emberfang-cub",
]  # fmt: skip
GOLDEN_B_FIRST_BOOSTER = [
    "lionheart-paladin", "whisperthread-puppet", "razorback-hunter", "gloomfen-mire",
    "chitin-flanker", "frenzied-gorehound", "vanguard-herald",
]  # fmt: skip
GOLDEN_COMMITMENT = "9b2317a50954f1ac14c1c48378e74f370248783ada8efdc8dfe6d5d4fc895f7f"


def test_golden_commitment(packs: PackSet) -> None:
    """docs/limited.md: the first two miniatures of A's golden pool, salt bytes 0-31."""
    a, _ = derive_pools("3-boosters", packs, bytes(32), [1] * PACK_DICE)
    assert warband_commitment(a[:2], bytes(range(32))).hex() == GOLDEN_COMMITMENT


def test_rules_600_4_and_600_5_are_advice_and_forbid_nothing(packs: PackSet) -> None:
    """600.4 (miniatures of different costs) and 600.5 (mostly creatures) are advice: a
    warband of locations only, or of one cost only, breaks no rule."""
    locations = tuple(m for m in packs.common if m.is_location)[:3]
    assert locations
    assert limited_breaches(locations, locations) == []
    same_cost = tuple(m for m in packs.common if m.spawn_cost == 3)[:5]
    assert len({m.spawn_cost for m in same_cost}) == 1
    assert limited_breaches(same_cost, same_cost) == []


def test_a_pack_set_other_than_the_catalogs_is_refused(catalog: Catalog) -> None:
    from dbnet.catalog.check import CatalogMismatchError, check_packs

    ours = pack_set(catalog)
    check_packs(ours, catalog)
    fewer = PackSet(ours.rare[:1], ours.uncommon, ours.common)  # only the first rare
    with pytest.raises(CatalogMismatchError, match="the pack set: it is not this dbnet's"):
        check_packs(fewer, catalog)
    moved = PackSet(ours.rare, ours.uncommon, (*ours.common, ours.rare[0]))
    with pytest.raises(CatalogMismatchError, match="the pack set"):
        check_packs(moved, catalog)
