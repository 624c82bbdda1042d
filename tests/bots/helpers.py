"""Games for the bot tests: the shipped default warbands, and small invented ones.

The invented creatures have no abilities and no aspect costs unless a test
asks for them, so spawn costs are exactly the printed ones.
"""

from __future__ import annotations

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import (
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

STANDARD_VALUES = {"b4": 2, "c4": 3, "d4": 2, "b3": 1, "c3": 5, "d3": 1, "b2": 2, "c2": 3, "d2": 2}


def creature(
    slug: str, cost: int, power: int, defense: int, life: int, aspects: tuple[Aspect, ...] = ()
) -> MiniatureDef:
    return MiniatureDef(
        slug, slug.replace("-", " ").title(), MiniKind.CREATURE, cost, aspects, power, defense, life
    )


def standard_map() -> MapDef:
    values = [0] * 25
    for name, value in STANDARD_VALUES.items():
        cell = parse_cell(name)
        assert cell is not None
        values[cell] = value
    return MapDef("test", tuple(values))


def cell(name: str) -> int:
    found = parse_cell(name)
    assert found is not None, name
    return found


def at(name: str, damage: int = 0) -> Placement:
    """A placement in the dreamscape at the named cell."""
    return Placement(Zone.DREAMSCAPE, cell(name), damage)


def position_game(
    a: tuple[MiniatureDef, ...],
    b: tuple[MiniatureDef, ...],
    placements: tuple[Placement, ...],
    **position: object,
) -> Game:
    """A game of these warbands set up at a position (``placements`` in A-then-B order)."""
    setup = GameSetup(standard_map(), (Warband("a", a), Warband("b", b)))
    return game_at(setup, Position(placements=placements, **position))  # type: ignore[arg-type]


def shipped() -> GameSetup:
    """The standard map and the two shipped default warbands."""
    return GameSetup(load_map(), default_warbands(load_catalog()))
