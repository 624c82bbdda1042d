"""``parse_mini``: one miniature table into a ``MiniatureDef`` (rule 300), and every refusal."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbnet.catalog import parse_entry, parse_mini, slugify
from dbnet.engine.model import AbilityDef, Activation, Aspect, MiniatureDef, MiniKind
from dbnet.errors import DataError

from .helpers import CREATURE, LOCATION

WHERE = "minis.toml, entry 7"
LION = "minis.toml, entry 7 ('Temple Lion')"
GATE = "minis.toml, entry 7 ('Moss Gate')"
WAIL = f"{LION}, ability 1 ('Wail')"
DROP = object()  # marks a field to remove


def changed(base: dict[str, object], **changes: object) -> dict[str, object]:
    table = dict(base)
    for key, value in changes.items():
        if value is DROP:
            del table[key]
        else:
            table[key] = value
    return table


def with_ability(**fields: object) -> dict[str, object]:
    return changed(CREATURE, abilities=[{"keyword": "Wail", **fields}])


def test_creature_is_parsed_with_defaults() -> None:
    assert parse_mini(CREATURE, WHERE) == MiniatureDef(
        slug="temple-lion",
        name="Temple Lion",
        kind=MiniKind.CREATURE,
        spawn_cost=8,
        aspects=(Aspect.VALOR,),
        power=4,
        defense=7,
        life=7,
    )


def test_location_has_no_stats() -> None:
    gate = parse_mini(changed(LOCATION, official=True, set="Base"), WHERE)
    assert gate.kind is MiniKind.LOCATION
    assert (gate.power, gate.defense, gate.life) == (0, 0, 0)
    assert (gate.official, gate.set_name) == (True, "Base")


def test_repeated_aspect_symbols_are_kept_in_order() -> None:
    """300.3: each symbol stands for one miniature of that aspect."""
    mini = parse_mini(changed(CREATURE, aspects=["Madness", "Valor", "Madness"]), WHERE)
    assert mini.aspects == (Aspect.MADNESS, Aspect.VALOR, Aspect.MADNESS)
    assert mini.aspect_needs() == ((Aspect.VALOR, 1), (Aspect.MADNESS, 2))


def test_no_aspect_is_an_empty_list() -> None:
    assert parse_mini(changed(CREATURE, aspects=[]), WHERE).aspects == ()


def test_abilities_are_structured() -> None:
    table = changed(
        CREATURE,
        abilities=[
            {"keyword": "Crit", "activation": "blade", "x": 2, "text": "Deal 2 more damage."},
            {"keyword": "Reinforce", "modifier": "Valor"},
            {"keyword": "Rally", "activation": "spawn", "spawn_cost": 0, "score": True},
        ],
    )
    assert parse_mini(table, WHERE).abilities == (
        AbilityDef("Crit", Activation.BLADE, x=2, text="Deal 2 more damage."),
        AbilityDef("Reinforce", modifier="Valor"),
        AbilityDef("Rally", Activation.SPAWN, spawn_cost=0, score=True),
    )


def test_numbers_may_be_negative_and_a_spawn_cost_may_be_x() -> None:
    """900.15: "Numbers are sometimes negative"; {oX}: the X spawn points paid are the number."""
    table = changed(
        CREATURE,
        abilities=[
            {"keyword": "Enrage", "x": -1},
            {"keyword": "Warpstrike", "activation": "spawn", "spawn_cost": "X", "score": True},
        ],
    )
    assert parse_mini(table, WHERE).abilities == (
        AbilityDef("Enrage", x=-1),
        AbilityDef("Warpstrike", Activation.SPAWN, cost_x=True, score=True),
    )


def test_provenance_is_kept_beside_the_engine_type() -> None:
    entry = parse_entry(
        changed(CREATURE, sources=["https://example.org/a"], confidence="medium", notes=" n "),
        WHERE,
    )
    assert entry.mini == parse_mini(CREATURE, WHERE)
    assert entry.provenance.sources == ("https://example.org/a",)
    assert (entry.provenance.confidence, entry.provenance.notes) == ("medium", "n")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Temple Lion", "temple-lion"),
        ("Baxar the Soul-Stitcher", "baxar-the-soul-stitcher"),
        ("  Knight of Strife & Joy!! ", "knight-of-strife-joy"),
        ("Akiza's 2nd Champion", "akiza-s-2nd-champion"),
    ],
)
def test_default_slug(name: str, slug: str) -> None:
    assert slugify(name) == slug
    assert parse_mini(changed(CREATURE, name=name), WHERE).slug == slug


def test_explicit_slug_wins() -> None:
    assert parse_mini(changed(CREATURE, slug="lion2"), WHERE).slug == "lion2"


@given(st.text(min_size=1, max_size=30))
def test_slugify_gives_a_notation_safe_slug_or_nothing(name: str) -> None:
    slug = slugify(name)
    assert slug == "" or re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug)


# (table, the start of the message: where, then the problem)
ERRORS: list[tuple[dict[str, object], str]] = [
    (changed(CREATURE, name=DROP), f"{WHERE}: field 'name' is required"),
    (changed(CREATURE, name=7), f"{WHERE}: field 'name' must be a string, got 7"),
    (changed(CREATURE, name="  "), f"{WHERE}: field 'name' must not be blank, got '  '"),
    (changed(CREATURE, name="???"), f"{WHERE} ('???'): field 'name' has no letter or digit"),
    (changed(CREATURE, pwoer=4), f"{LION}: unknown field 'pwoer'; did you mean 'power'?"),
    (changed(CREATURE, colour="red"), f"{LION}: unknown field 'colour' (allowed: 'name',"),
    (changed(CREATURE, slug="Temple Lion"), f"{LION}: field 'slug' must be lower-case"),
    (changed(CREATURE, slug="lion#2"), f"{LION}: field 'slug' must be lower-case"),
    (changed(CREATURE, type=DROP), f"{LION}: field 'type' is required"),
    (
        changed(CREATURE, type="beast"),
        f"{LION}: field 'type' must be one of 'creature', 'location', got 'beast'",
    ),
    (changed(CREATURE, spawn_cost=DROP), f"{LION}: field 'spawn_cost' is required"),
    (changed(CREATURE, spawn_cost=-1), f"{LION}: field 'spawn_cost' must be at least 0, got -1"),
    (
        changed(CREATURE, spawn_cost=True),
        f"{LION}: field 'spawn_cost' must be an integer, got True",
    ),
    (changed(CREATURE, spawn_cost="8"), f"{LION}: field 'spawn_cost' must be an integer, got '8'"),
    (changed(CREATURE, spawn_cost=8.0), f"{LION}: field 'spawn_cost' must be an integer, got 8.0"),
    (changed(CREATURE, aspects=DROP), f"{LION}: field 'aspects' is required"),
    (changed(CREATURE, aspects="Valor"), f"{LION}: field 'aspects' must be a list, got 'Valor'"),
    (
        changed(CREATURE, aspects=["Valor", "valor"]),
        f"{LION}: field 'aspects' must be one of 'Valor', 'Madness', 'Fear', 'Passion', "
        "got 'valor'",
    ),
    (changed(CREATURE, power=DROP), f"{LION}: field 'power' is required for a creature"),
    (changed(CREATURE, defense=DROP), f"{LION}: field 'defense' is required for a creature"),
    (changed(CREATURE, life=DROP), f"{LION}: field 'life' is required for a creature"),
    (changed(CREATURE, power=-1), f"{LION}: field 'power' must be at least 0, got -1"),
    (changed(CREATURE, defense=0), f"{LION}: field 'defense' must be at least 1, got 0"),
    (changed(CREATURE, life=0), f"{LION}: field 'life' must be at least 1, got 0"),
    (changed(CREATURE, life=False), f"{LION}: field 'life' must be an integer, got False"),
    (changed(CREATURE, lineage=3), f"{LION}: field 'lineage' must be a string, got 3"),
    (
        changed(CREATURE, official="yes"),
        f"{LION}: field 'official' must be true or false, got 'yes'",
    ),
    (changed(CREATURE, official=1), f"{LION}: field 'official' must be true or false, got 1"),
    (changed(CREATURE, set=2), f"{LION}: field 'set' must be a string, got 2"),
    (changed(CREATURE, sources="http://x"), f"{LION}: field 'sources' must be a list, got 'http"),
    (changed(CREATURE, sources=[1]), f"{LION}: field 'sources' must be a string, got 1"),
    (
        changed(CREATURE, confidence="certain"),
        f"{LION}: field 'confidence' must be one of 'high', 'medium', 'low', got 'certain'",
    ),
    (changed(CREATURE, notes=5), f"{LION}: field 'notes' must be a string, got 5"),
    (
        changed(LOCATION, power=0),
        f"{GATE}: field 'power' is not allowed for a location (locations have no power, "
        "defense or life), got 0",
    ),
    (changed(LOCATION, life=3), f"{GATE}: field 'life' is not allowed for a location"),
    (
        changed(CREATURE, abilities={"keyword": "Wail"}),
        f"{LION}: field 'abilities' must be a list, got {{'keyword': 'Wail'}}",
    ),
    (changed(CREATURE, abilities=["Wail"]), f"{LION}: ability 1 must be a table, got 'Wail'"),
    (changed(CREATURE, abilities=[{}]), f"{LION}, ability 1: field 'keyword' is required"),
    (with_ability(keyword=5), f"{LION}, ability 1: field 'keyword' must be a string, got 5"),
    (with_ability(cost="blade"), f"{WAIL}: unknown field 'cost'"),
    (
        with_ability(activation="blades"),
        f"{WAIL}: field 'activation' must be one of 'always', 'blade', 'multiblade', "
        "'double_blade', 'double_multiblade', 'spawn', 'comes_into_play', 'unknown', "
        "got 'blades'",
    ),
    (with_ability(x=True), f"{WAIL}: field 'x' must be an integer, got True"),
    (with_ability(x=1.5), f"{WAIL}: field 'x' must be an integer, got 1.5"),
    (with_ability(modifier=3), f"{WAIL}: field 'modifier' must be a string, got 3"),
    (
        with_ability(activation="spawn"),
        f"{WAIL}: field 'spawn_cost' is required for a spawn ability (303.2a)",
    ),
    (
        with_ability(activation="blade", spawn_cost=2),
        f"{WAIL}: field 'spawn_cost' is only allowed for a spawn ability (303.2a), "
        "but activation is 'blade'",
    ),
    (
        with_ability(activation="spawn", spawn_cost=-1),
        f"{WAIL}: field 'spawn_cost' must be at least 0, got -1",
    ),
    (
        with_ability(activation="spawn", spawn_cost="Y"),
        f"{WAIL}: field 'spawn_cost' must be an integer or 'X' (the spawn points paid are "
        "the ability's number), got 'Y'",
    ),
    (
        with_ability(activation="blade", spawn_cost="X"),
        f"{WAIL}: field 'spawn_cost' is only allowed for a spawn ability (303.2a), "
        "but activation is 'blade'",
    ),
    (with_ability(score="yes"), f"{WAIL}: field 'score' must be true or false, got 'yes'"),
    (with_ability(text=["a"]), f"{WAIL}: field 'text' must be a string, got ['a']"),
]


@pytest.mark.parametrize(("table", "message"), ERRORS)
def test_errors_name_the_entry_the_field_and_the_value(
    table: dict[str, object], message: str
) -> None:
    with pytest.raises(DataError) as info:
        parse_mini(table, WHERE)
    assert str(info.value).startswith(message)
