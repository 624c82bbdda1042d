"""The data shipped in the package and the example warbands: they load, obey the rules and play."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.catalog import Catalog, default_warbands, load_map, load_warband
from dbnet.engine import Game, GameSetup, board
from dbnet.engine.keywords import check_ability
from dbnet.engine.model import Aspect, MiniKind, Warband
from dbnet.errors import DataError

from .helpers import EXAMPLE_WARBANDS

V, M, F, P = Aspect.VALOR, Aspect.MADNESS, Aspect.FEAR, Aspect.PASSION
C, L = MiniKind.CREATURE, MiniKind.LOCATION

# Every real miniature whose stats are all known in the project's sources.
OFFICIAL = {
    "Screambent Lunatic": (C, 9, (M, M, M), 4, 7, 12, "Dreamblade"),
    "Darkheart Cottage": (L, 6, (M, M, M), 0, 0, 0, "Dreamblade"),
    "Temple": (L, 3, (P, P), 0, 0, 0, "Dreamblade"),
    "Sir Glorious": (C, 6, (V,), 3, 6, 8, "Dreamblade"),
    "Lockjaw": (C, 8, (M, M, M), 2, 4, 7, "Baxar's War"),
    "Temple Lion": (C, 8, (V,), 4, 7, 7, "Baxar's War"),
    # stats that minis.json lacks come from the rulebook's sample warband
    "Spellbound Scissors": (C, 2, (M,), 2, 2, 5, "Dreamblade"),
    "Noble Dragon": (C, 12, (V,), 6, 11, 12, "Dreamblade"),
    "Pearlthorn Castle": (L, 3, (V, V), 0, 0, 0, "Dreamblade"),
}
LINEAGES = {"Janus", "Lost", "Hivelings", "Hellbred", "Bloodcut"}


def test_official_miniatures_are_exactly_those_fully_known(catalog: Catalog) -> None:
    official = [m for m in catalog if m.official]
    assert {m.name: (m.kind, m.spawn_cost, m.aspects, m.power, m.defense, m.life, m.set_name)
            for m in official} == OFFICIAL  # fmt: skip
    assert catalog.get("Sir Glorious").lineage == "Janus"
    for mini in official:
        provenance = catalog.provenance(mini)
        assert mini.abilities, mini.name
        assert provenance.sources, mini.name
        assert provenance.confidence in ("high", "medium"), mini.name


def test_official_abilities_are_played_unless_their_effect_is_unknown(catalog: Catalog) -> None:
    wail = catalog.get("screambent-lunatic").abilities[0]
    assert (wail.keyword, wail.activation.value) == ("Wail", "blade")
    assert "banished" in wail.text
    unknown = set()
    for mini in catalog:
        for ability in mini.abilities:
            assert ability.text, mini.name
            if check_ability(ability) is not None:
                unknown.add(mini.name)
                assert ability.keyword == "(name unknown)", mini.name
    # Our sources describe these two abilities only vaguely: never guessed, never played.
    assert unknown == {"Temple", "Temple Lion"}


def test_originals_cover_aspects_lineages_and_costs(catalog: Catalog) -> None:
    originals = [m for m in catalog if not m.official]
    assert len(originals) >= 24
    assert all(m.set_name == "dbnet Originals" and not m.abilities for m in originals)
    assert {a for m in originals for a in m.aspects} == set(Aspect)
    assert {m.lineage for m in originals if m.lineage} == LINEAGES
    creatures = [m for m in originals if m.is_creature]
    assert {m.spawn_cost for m in creatures} == set(range(1, 13))
    assert 2 <= sum(1 for m in originals if m.is_location) <= 3
    assert not {m.name for m in originals} & set(OFFICIAL)


def test_original_stats_are_in_line_with_real_ones(catalog: Catalog) -> None:
    """Power grows with cost, and the 12s are near the real 12s (power 6, 11/12)."""
    for mini in catalog:
        if mini.is_creature and not mini.official:
            assert mini.spawn_cost // 2 <= mini.power + 1 <= mini.spawn_cost // 2 + 3, mini.name
            assert mini.defense <= mini.life, mini.name
            assert mini.life <= 14, mini.name
    for mini in catalog:
        if mini.spawn_cost >= 9 and mini.is_creature and not mini.official:
            assert len(mini.aspects) >= 2, mini.name


def test_standard_map_is_marked_unconfirmed() -> None:
    game_map = load_map()
    assert game_map.name == "standard"
    assert game_map.reconstructed
    assert "NOT confirmed" in game_map.note
    by_name = {board.cell_name(c): v for c, v in enumerate(game_map.values) if v}
    assert by_name == {
        "b4": 2, "c4": 3, "d4": 2, "b3": 1, "c3": 5, "d3": 1, "b2": 2, "c2": 3, "d2": 2,
    }  # fmt: skip


def test_default_warbands_are_legal_and_playable(catalog: Catalog) -> None:
    a, b = default_warbands(catalog)
    assert a.name != b.name
    for warband in (a, b):
        assert len(warband.minis) == 16  # 600.1
        assert all(not m.abilities for m in warband.minis)
        assert len({asp for m in warband.minis for asp in m.aspects}) >= 2
        assert any(m.is_location for m in warband.minis)
    game = Game(GameSetup(load_map(), (a, b)))
    assert game.pending is not None


@pytest.mark.parametrize("side", [0, 1])
def test_default_warbands_can_spend_every_spawn_total(catalog: Catalog, side: int) -> None:
    """600.4: any total from 4 to 12 is one miniature's cost or two miniatures' costs."""
    costs = [m.spawn_cost for m in default_warbands(catalog)[side].minis]
    spendable = set(costs) | {
        costs[i] + costs[j] for i in range(len(costs)) for j in range(i + 1, len(costs))
    }
    assert set(range(4, 13)) <= spendable


def example_files() -> list[Path]:
    return sorted(EXAMPLE_WARBANDS.glob("*.toml"))


def test_there_are_example_warbands() -> None:
    assert len(example_files()) >= 2


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_example_warbands_load_and_say_when_the_engine_refuses_them(
    catalog: Catalog, path: Path
) -> None:
    warband = load_warband(path, catalog)
    assert 1 <= len(warband.minis) <= 16
    opponent = default_warbands(catalog)[1]
    setup = GameSetup(load_map(), (warband, opponent))
    unplayable = [m.name for m in warband.minis if any(check_ability(a) for a in m.abilities)]
    if not unplayable:
        assert Game(setup).pending is not None
        return
    header = path.read_text(encoding="utf-8").split("\nname")[0]
    assert "allow_unimplemented" in header
    with pytest.raises(DataError, match="can't be played"):
        Game(setup)
    assert Game(setup, allow_unimplemented=True).pending is not None


def test_warband_with_real_miniatures_is_refused_by_default(catalog: Catalog) -> None:
    lion = Warband("Lions", (catalog.get("Temple Lion"),))
    setup = GameSetup(load_map(), (lion, default_warbands(catalog)[1]))
    with pytest.raises(DataError) as info:
        Game(setup)
    assert str(info.value) == (
        "warband 'Lions', Temple Lion: ability '(name unknown)' is not implemented by these rules"
    )
