"""dbnet Originals: marked as not official, every keyword on one, in line with the real scale."""

from __future__ import annotations

from collections import Counter

import pytest

from dbnet.catalog import Catalog
from dbnet.catalog.files import shipped_text
from dbnet.engine.keywords import KEYWORDS, LINEAGES, check_ability
from dbnet.engine.model import Activation, Aspect, MiniatureDef, MiniKind

V, M, F, P = Aspect.VALOR, Aspect.MADNESS, Aspect.FEAR, Aspect.PASSION
C, L = MiniKind.CREATURE, MiniKind.LOCATION

# The 26 originals without abilities, as first shipped: the default warbands and many
# tests use them, so they must never be renamed or restated.
VANILLA = {
    "Lantern Page": (C, 1, (V,), 1, 2, 3, "Janus"),
    "Brassward Sentry": (C, 3, (V,), 2, 4, 5, "Bloodcut"),
    "Oathbound Halberdier": (C, 5, (V,), 3, 5, 7, "Janus"),
    "Gilded Aegis Knight": (C, 8, (V, V), 4, 8, 10, None),
    "Dawnspire Colossus": (C, 12, (V, V, V), 6, 11, 12, None),
    "Murmur Wisp": (C, 2, (M,), 1, 2, 5, "Lost"),
    "Hollowglass Mime": (C, 4, (M,), 2, 3, 7, "Lost"),
    "Whisperthread Puppet": (C, 6, (M, M), 3, 4, 9, "Janus"),
    "Vertigo Harlequin": (C, 9, (M, M, M), 4, 6, 13, "Lost"),
    "Kaleidoscope Sovereign": (C, 11, (M, M), 5, 7, 14, "Janus"),
    "Chitter Drone": (C, 1, (F,), 1, 1, 3, "Hivelings"),
    "Gloomwing Larva": (C, 2, (F,), 2, 2, 4, "Hivelings"),
    "Dread Carapace": (C, 5, (F,), 3, 5, 7, "Hivelings"),
    "Nightveil Stalker": (C, 7, (F, F), 4, 6, 9, "Hellbred"),
    "Hivemother Regent": (C, 10, (F, F, F), 5, 8, 12, "Hivelings"),
    "Emberfang Cub": (C, 2, (P,), 2, 2, 4, "Bloodcut"),
    "Brimstone Imp": (C, 3, (P,), 2, 3, 5, "Hellbred"),
    "Cinderhorn Raider": (C, 4, (P,), 3, 4, 5, "Bloodcut"),
    "Ashmaw Brute": (C, 6, (P,), 4, 5, 7, "Hellbred"),
    "Pyre Devourer": (C, 9, (P, P), 6, 6, 9, "Hellbred"),
    "Magmaheart Tyrant": (C, 12, (P, P, P), 7, 9, 11, "Hellbred"),
    "Twinmask Duelist": (C, 7, (V, M), 3, 6, 9, "Janus"),
    "Wildkin Warden": (C, 8, (P, V), 4, 7, 9, "Bloodcut"),
    "Moonwell Shrine": (L, 2, (V,), 0, 0, 0, None),
    "Thornbriar Hollow": (L, 3, (F,), 0, 0, 0, None),
    "Ember Altar": (L, 1, (P,), 0, 0, 0, None),
}
# Rules 500-504: the aspects each lineage draws on.
LINEAGE_ASPECTS = {
    "Janus": {V, M},
    "Lost": {M},
    "Hivelings": {F},
    "Hellbred": {F, P},
    "Bloodcut": {P, V},
}
# Names of real miniatures in the project's sources (minis.json, the rulebook's sample
# warband, the FAQ): an original must not take one.
REAL_NAMES = {
    "Akiza Champion", "Akiza Guardian", "Angel of Sunrises", "Axemorph Demon",
    "Baxar the Soul-Stitcher", "Blood Wolf", "Brighthammer Avenger", "Cannibal Pariah",
    "Carrion Spiker", "Crypt Worm", "Cyclopean Sprite", "Darkheart Cottage",
    "Dreadmorph Ogre", "Eagle-feather Warrior", "Eater of Hope", "Faceless Stalker",
    "Fleshless Reaper", "Forgeblind Punisher", "Gateway to Psychosis", "Heart Thief",
    "Horrid Poltergeist", "Infernal Gothic", "Inspired Samurai", "Iron Thug", "Kitsune",
    "Knight of Strife and Joy", "Lockjaw", "Medusa", "Mirrorman", "Munjina", "Noble Dragon",
    "Pearlthorn Castle", "Rainforest Shaman", "Relentless Eviscerator", "Ropestrung Scarecrow",
    "Runetagged Brawler", "Saint of Roses", "Savage Ogre", "Savannah Dreamhunter",
    "Scarab Warcharm", "Scragglemaw", "Screambent Lunatic", "Seraph", "Sir Glorious",
    "Skull Hill", "Slaughtwheel", "Spellbound Scissors", "Temple", "Temple Lion",
    "Twilight Scout", "Valkyrie Moonrider", "Windborne Blademaster", "World Eater",
    "Zombie Enforcer",
}  # fmt: skip
# Abilities that cost their miniature stats rather than give it an edge (the glossary's
# negative blade abilities, self-sacrifice, restrictions). Unique is neither.
DRAWBACKS = frozenset(
    {"Appease", "Bloodthirsty", "Defender", "Detonate", "Dissipate", "Fade", "Fumble",
     "Inciter", "Loner", "Vengeance"}
)  # fmt: skip
NEUTRAL = frozenset({"Unique"})
# Abilities that mean nothing on a location: it never attacks, moves, contests or is
# damaged, and the engine's attack and movement abilities act for creatures.
CREATURE_ONLY = frozenset(
    {"Ambush", "Bloodthirsty", "Bodyguard", "Charge", "Copy", "Defender", "Detonate",
     "Dissipate", "Dominate", "Fade", "Fight", "Fortunate", "Geomancy", "Loner", "Regenerate",
     "Relentless", "Strikeback", "Swap", "Thanatomancy"}
)  # fmt: skip
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six")


def originals(catalog: Catalog) -> list[MiniatureDef]:
    return [m for m in catalog if not m.official]


def with_abilities(catalog: Catalog) -> list[MiniatureDef]:
    return [m for m in originals(catalog) if m.abilities]


def stat_points(mini: MiniatureDef) -> int:
    """2 x power + defense + life: what a creature's stats are worth."""
    return 2 * mini.power + mini.defense + mini.life


def curve(cost: int) -> float:
    """The stat points of a plain creature of spawn cost ``cost`` (see originals.toml)."""
    return 6 + 2.4 * cost


def test_the_file_and_every_original_say_they_are_not_official(catalog: Catalog) -> None:
    text, _ = shipped_text("originals.toml")
    header = text.split("[[mini]]")[0]
    assert "NOT official" in header
    assert "dbnet project" in header
    for mini in originals(catalog):
        assert mini.set_name == "dbnet Originals", mini.name
        assert not catalog.provenance(mini).sources, mini.name
    assert not {m.name for m in originals(catalog)} & REAL_NAMES


def test_there_are_at_least_48_originals_and_40_with_abilities(catalog: Catalog) -> None:
    assert len(originals(catalog)) >= 48
    assert len(with_abilities(catalog)) >= 40


def test_the_vanilla_originals_are_unchanged(catalog: Catalog) -> None:
    vanilla = {m.name: m for m in originals(catalog) if not m.abilities}
    assert {
        name: (m.kind, m.spawn_cost, m.aspects, m.power, m.defense, m.life, m.lineage)
        for name, m in vanilla.items()
    } == VANILLA
    assert [m.slug for m in originals(catalog)][:3] == [
        "lantern-page", "brassward-sentry", "oathbound-halberdier",
    ]  # fmt: skip


def test_every_ability_is_playable_and_has_its_own_text(catalog: Catalog) -> None:
    """The text agrees with the printed number, spawn cost and score condition."""
    for mini in with_abilities(catalog):
        for ability in mini.abilities:
            where = f"{mini.name}: {ability.keyword}"
            assert check_ability(ability) is None, where
            text = ability.text
            assert text.endswith("."), where
            if ability.x is not None:
                assert str(ability.x) in text or NUMBER_WORDS[ability.x] in text, where
            if ability.activation is Activation.SPAWN:
                cost = "X" if ability.cost_x else str(ability.spawn_cost)
                assert f"Pay {cost} spawn point" in text, where
            assert ("on one of your scoring cells" in text) == ability.score, where


def test_every_keyword_is_carried_by_an_original(catalog: Catalog) -> None:
    carried = Counter(a.keyword for m in with_abilities(catalog) for a in m.abilities)
    assert set(KEYWORDS) <= set(carried)
    assert len(KEYWORDS) == 58  # the glossary's 57 keywords and the FAQ's Dissipate


def test_every_activation_kind_is_used(catalog: Catalog) -> None:
    abilities = [a for m in with_abilities(catalog) for a in m.abilities]
    assert {a.activation for a in abilities} == set(Activation) - {Activation.UNKNOWN}
    spawn = [a for a in abilities if a.activation is Activation.SPAWN]
    assert any(a.spawn_cost is not None and a.spawn_cost > 0 for a in spawn)
    assert any(a.cost_x for a in spawn)
    assert any(a.score for a in spawn)
    assert any(a.score for a in abilities if a.activation is not Activation.SPAWN)


def test_aspects_and_lineages_are_all_represented_and_consistent(catalog: Catalog) -> None:
    """Rules 500-504: a lineage's creatures draw on its aspects only."""
    ability_minis = with_abilities(catalog)
    assert {a for m in ability_minis for a in m.aspects} == set(Aspect)
    assert {m.lineage for m in ability_minis if m.lineage} == set(LINEAGES)
    assert set(LINEAGE_ASPECTS) == set(LINEAGES)
    for mini in originals(catalog):
        assert mini.aspects, mini.name
        if mini.lineage is not None:
            assert set(mini.aspects) <= LINEAGE_ASPECTS[mini.lineage], mini.name


def test_spawn_costs_run_from_1_to_12(catalog: Catalog) -> None:
    for minis in (originals(catalog), with_abilities(catalog)):
        assert {m.spawn_cost for m in minis if m.is_creature} == set(range(1, 13))
        assert all(1 <= m.spawn_cost <= 12 for m in minis)


def test_locations_carry_abilities_that_work_for_a_location(catalog: Catalog) -> None:
    """At least six, with a blade ability (used by local allies' attacks), a static one
    and a spawn ability among them; none that only a creature can use."""
    locations = [m for m in originals(catalog) if m.is_location]
    assert len(locations) >= 6
    abilities = [a for m in locations for a in m.abilities]
    assert len([m for m in locations if m.abilities]) >= 6
    assert any(a.activation.is_blade for a in abilities)
    assert any(a.activation is Activation.ALWAYS for a in abilities)
    assert any(a.activation is Activation.SPAWN for a in abilities)
    assert not {a.keyword for a in abilities} & CREATURE_ONLY


def test_some_originals_have_two_abilities(catalog: Catalog) -> None:
    assert len([m for m in originals(catalog) if len(m.abilities) >= 2]) >= 3


def test_the_stat_curve_fits_the_real_scale() -> None:
    """The real scale: cost 2 about 2, 2/5; cost 6 about 3, 6/8; cost 9 about 4, 7/12;
    cost 12 about 6, 11/12."""
    for cost, (power, defense, life) in {2: (2, 2, 5), 6: (3, 6, 8), 9: (4, 7, 12),
                                         12: (6, 11, 12)}.items():  # fmt: skip
        assert abs(curve(cost) - (2 * power + defense + life)) <= 1


@pytest.mark.parametrize("kind", ["plain", "good", "drawback", "mixed"])
def test_stats_are_in_line_with_the_abilities(catalog: Catalog, kind: str) -> None:
    """A plain creature sits on the curve; a good ability costs up to three spawn points
    of stats; drawbacks buy up to three; a mix of both stays within two."""
    checked = 0
    for mini in originals(catalog):
        if not mini.is_creature:
            continue
        assert mini.defense <= mini.life <= 14, mini.name
        if mini.spawn_cost >= 9:
            assert len(mini.aspects) >= 2, mini.name
        keywords = {a.keyword for a in mini.abilities} - NEUTRAL
        bad = keywords & DRAWBACKS
        mini_kind = (
            "plain" if not keywords else
            "drawback" if bad == keywords else
            "good" if not bad else
            "mixed"
        )  # fmt: skip
        if mini_kind != kind:
            continue
        checked += 1
        points, cost = stat_points(mini), mini.spawn_cost
        low, high = {
            "plain": (curve(cost) - 3, curve(cost) + 1),
            "good": (curve(cost - 3), curve(cost)),
            "drawback": (curve(cost), curve(cost + 3)),
            "mixed": (curve(cost - 2), curve(cost + 2)),
        }[kind]
        assert low <= points <= high, f"{mini.name}: {points} points, not in {low}-{high}"
    assert checked >= 2
