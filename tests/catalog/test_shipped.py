"""The data shipped in the package: real miniatures, the map and the default warbands."""

from __future__ import annotations

import pytest

from dbnet.catalog import Catalog, default_warbands, load_map
from dbnet.engine import Game, GameSetup, board
from dbnet.engine.keywords import check_ability
from dbnet.engine.model import Aspect, MiniKind, Warband
from dbnet.errors import DataError

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
        assert max(warband.minis.count(m) for m in warband.minis) <= 3  # 600.3
        assert any(m.is_location for m in warband.minis)
        # real Dreamblade: abilities, every one of them played (no unknown effect)
        assert sum(1 for m in warband.minis if m.abilities) >= 12
        assert all(check_ability(x) is None for m in warband.minis for x in m.abilities)
        assert any(x.spawn_cost is not None or x.cost_x for m in warband.minis
                   for x in m.abilities)  # fmt: skip
    game = Game(GameSetup(load_map(), (a, b)))  # refuses a warband it cannot play
    assert game.pending is not None


@pytest.mark.parametrize("side", [0, 1])
def test_default_warbands_can_spend_every_spawn_total(catalog: Catalog, side: int) -> None:
    """600.4: any total from 4 to 12 is one miniature's cost or two miniatures' costs, even
    leaving out what may not be spawnable (Vengeance) and a second copy of a Unique one."""
    minis = default_warbands(catalog)[side].minis
    usable = [m for m in minis if not any(x.keyword == "Vengeance" for x in m.abilities)]
    for m in minis:
        if any(x.keyword == "Unique" for x in m.abilities) and usable.count(m) > 1:
            usable.remove(m)
    assert len(usable) >= 14
    costs = [m.spawn_cost for m in usable]
    spendable = set(costs) | {
        costs[i] + costs[j] for i in range(len(costs)) for j in range(i + 1, len(costs))
    }
    assert set(range(4, 13)) <= spendable


def test_warband_with_real_miniatures_is_refused_by_default(catalog: Catalog) -> None:
    lion = Warband("Lions", (catalog.get("Temple Lion"),))
    setup = GameSetup(load_map(), (lion, default_warbands(catalog)[1]))
    with pytest.raises(DataError) as info:
        Game(setup)
    assert str(info.value) == (
        "warband 'Lions', Temple Lion: ability '(name unknown)' can't be played: "
        "'(name unknown)' is not an ability keyword the engine knows"
    )
    # Allowed, the game plays it as a creature whose ability has no effect.
    game = Game(setup, allow_unimplemented=True)
    assert game.pending is not None
