"""Vanilla warbands and the standard map for the engine tests.

The engine tests must not depend on the catalog, so they play with invented
miniatures that have no abilities: creatures of every aspect with spawn costs
from 1 to 12 (a 0-power one among them, 900.5, and aspect costs of one to
three symbols, 801.4), two locations per warband, and copies (600.3).
"""

from __future__ import annotations

import pytest

from dbnet.engine import board
from dbnet.engine.game import Game
from dbnet.engine.model import (
    Aspect,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Options,
    Warband,
)

V, M, F, P = Aspect.VALOR, Aspect.MADNESS, Aspect.FEAR, Aspect.PASSION


def creature(
    slug: str, cost: int, aspects: tuple[Aspect, ...], power: int, defense: int, life: int
) -> MiniatureDef:
    """A creature without abilities."""
    name = slug.replace("-", " ").title()
    return MiniatureDef(
        slug, name, MiniKind.CREATURE, cost, aspects, power, defense, life, set_name="test"
    )


def location(slug: str, cost: int, aspects: tuple[Aspect, ...]) -> MiniatureDef:
    """A location without abilities."""
    name = slug.replace("-", " ").title()
    return MiniatureDef(slug, name, MiniKind.LOCATION, cost, aspects, set_name="test")


ASH_SENTINEL = creature("ash-sentinel", 1, (V,), 1, 2, 2)
CINDER_HOUND = creature("cinder-hound", 2, (P,), 2, 1, 2)
MIRE_WISP = creature("mire-wisp", 3, (M,), 0, 3, 2)  # 0 power: attacks with no dice
THORN_STALKER = creature("thorn-stalker", 3, (P,), 2, 2, 3)
HOLLOW_KNIGHT = creature("hollow-knight", 4, (V, V), 2, 3, 4)
GRIM_WARDEN = creature("grim-warden", 5, (F,), 3, 3, 3)
GRIM_HOWLER = creature("grim-howler", 6, (F, P), 3, 4, 5)
PALE_SEER = creature("pale-seer", 7, (M, V), 3, 4, 4)
DUSK_TITAN = creature("dusk-titan", 8, (V, F), 4, 5, 6)
STORM_DRAKE = creature("storm-drake", 9, (P, P), 5, 4, 6)
VOID_COLOSSUS = creature("void-colossus", 10, (M, M), 5, 6, 7)
GLOOM_BEHEMOTH = creature("gloom-behemoth", 11, (F, F, M), 6, 6, 8)
DREAM_LEVIATHAN = creature("dream-leviathan", 12, (P, P, V), 6, 7, 9)
SHRINE_OF_ECHOES = location("shrine-of-echoes", 2, (V,))
BONE_SPIRE = location("bone-spire", 3, (F,))
MIRROR_POOL = location("mirror-pool", 1, (M,))

WARBAND_A = Warband(
    "vanilla-a",
    (
        ASH_SENTINEL, ASH_SENTINEL, ASH_SENTINEL, CINDER_HOUND, CINDER_HOUND, MIRE_WISP,
        THORN_STALKER, HOLLOW_KNIGHT, GRIM_WARDEN, GRIM_HOWLER, PALE_SEER, DUSK_TITAN,
        VOID_COLOSSUS, DREAM_LEVIATHAN, SHRINE_OF_ECHOES, BONE_SPIRE,
    ),
)  # fmt: skip
WARBAND_B = Warband(
    "vanilla-b",
    (
        CINDER_HOUND, CINDER_HOUND, CINDER_HOUND, ASH_SENTINEL, ASH_SENTINEL, MIRE_WISP,
        MIRE_WISP, THORN_STALKER, GRIM_WARDEN, GRIM_HOWLER, DUSK_TITAN, STORM_DRAKE,
        GLOOM_BEHEMOTH, DREAM_LEVIATHAN, MIRROR_POOL, BONE_SPIRE,
    ),
)  # fmt: skip

_VALUES = {"b4": 2, "c4": 3, "d4": 2, "b3": 1, "c3": 5, "d3": 1, "b2": 2, "c2": 3, "d2": 2}
STANDARD_MAP = MapDef(
    "standard",
    tuple(_VALUES.get(board.cell_name(cell), 0) for cell in range(board.CELL_COUNT)),
    reconstructed=True,
    note="DESIGN.md section 2 default values; not confirmed by any source",
)

VANILLA_SETUP = GameSetup(STANDARD_MAP, (WARBAND_A, WARBAND_B), Options())
WARBAND_SIZE = 16


@pytest.fixture
def vanilla_setup() -> GameSetup:
    return VANILLA_SETUP


@pytest.fixture
def game() -> Game:
    return Game(VANILLA_SETUP)
