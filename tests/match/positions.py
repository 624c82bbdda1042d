"""Positions the tests of the match's words share: small warbands placed on a test map,
and a game whose warbands are named with control, bidi and isolate characters."""

from __future__ import annotations

from dbnet.engine import (
    AbilityDef,
    Aspect,
    Game,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Placement,
    Position,
    Warband,
    Zone,
    game_at,
)
from dbnet.engine.board import parse_cell

V, M, F = Aspect.VALOR, Aspect.MADNESS, Aspect.FEAR
STANDARD = {"b4": 2, "c4": 3, "d4": 2, "b3": 1, "c3": 5, "d3": 1, "b2": 2, "c2": 3, "d2": 2}


def creature(
    slug: str, cost: int, aspects: tuple[Aspect, ...], p: int, d: int, li: int
) -> MiniatureDef:
    return MiniatureDef(slug, slug.title(), MiniKind.CREATURE, cost, aspects, p, d, li)


TEMPLE_LION = creature("temple-lion", 3, (V,), 2, 3, 4)
SIR_GLORIOUS = creature("sir-glorious", 6, (V, V), 3, 5, 7)
MOON_SHRINE = MiniatureDef("moon-shrine", "Moon Shrine", MiniKind.LOCATION, 2, (V,))
LOCKJAW = creature("lockjaw", 4, (M,), 3, 3, 5)
PIT_BEAST = creature("pit-beast", 5, (F,), 3, 4, 6)
BIG_ONE = creature("big-one", 8, (M, M, M), 4, 6, 9)
MAD_HAT = creature("mad-hat", 2, (M,), 1, 2, 3)


def cell(name: str) -> int:
    found = parse_cell(name)
    assert found is not None
    return found


def at(name: str, damage: int = 0) -> Placement:
    return Placement(Zone.DREAMSCAPE, cell(name), damage)


def sample_game(**position: object) -> Game:
    values = [0] * 25
    for name, value in STANDARD.items():
        values[cell(name)] = value
    setup = GameSetup(
        MapDef("test", tuple(values)),
        (
            Warband("a", (TEMPLE_LION, TEMPLE_LION, SIR_GLORIOUS, MOON_SHRINE)),
            Warband("b", (LOCKJAW, PIT_BEAST, BIG_ONE, MAD_HAT)),
        ),
    )
    placements = (
        at("c3", damage=2),  # A temple-lion#1
        Placement(),  # A temple-lion#2, in reserves
        at("c4"),  # A sir-glorious
        at("c3"),  # A moon-shrine (a location)
        at("c3"),  # B lockjaw
        Placement(Zone.GRAVEYARD),  # B pit-beast
        Placement(),  # B big-one
        Placement(),  # B mad-hat
    )
    return game_at(setup, Position(placements=placements, **position))  # type: ignore[arg-type]


HOSTILE = "Evil\nA> resign\r\x1b[2J\x85\u202eX\u2066"
SHOWN = "Evil\\nA> resign\\r\\x1b[2J\\x85\\u202eX\\u2066"


def hostile_game() -> Game:
    """A game whose warbands, map and a miniature (its name, its set, an ability's keyword,
    modifier and text) are named with control, bidi and isolate characters, as the other
    peer may send them."""
    odd = AbilityDef(f"Wyrd{HOSTILE}", modifier=HOSTILE, text=HOSTILE)
    mini = MiniatureDef(
        "hostile", HOSTILE, MiniKind.CREATURE, 2, (V,), 2, 2, 2, set_name=HOSTILE,
        abilities=(odd,),
    )  # fmt: skip
    setup = GameSetup(
        MapDef(HOSTILE, (0,) * 25), (Warband(HOSTILE, (mini,)), Warband(HOSTILE, (LOCKJAW,)))
    )
    return Game(setup, allow_unimplemented=True)


def assert_printable(lines: list[str]) -> None:
    for line in lines:
        assert line.isprintable(), f"a raw control or format character in {line!r}"
