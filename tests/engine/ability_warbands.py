"""Random warbands whose miniatures carry random abilities: every keyword, activation,
number and modifier the keyword table allows, on creatures and locations.

The property tests play many games with them, so that abilities meet each other in
combinations nobody would think to write a scenario for.
"""

from __future__ import annotations

import random

from dbnet.catalog import load_map
from dbnet.engine import (
    AbilityDef,
    Activation,
    Aspect,
    GameSetup,
    MiniatureDef,
    MiniKind,
    Options,
    Warband,
)
from dbnet.engine.keywords import CUSTOM, KEYWORDS, Modifiers, Number, check_ability

NAMES = sorted(KEYWORDS) + sorted(CUSTOM)
TYPES = ("Valor", "Madness", "Fear", "Passion", "Janus", "Lost", "Hivelings", "Hellbred",
         "Bloodcut")  # fmt: skip
LINEAGES = (None, "Janus", "Lost", "Hivelings", "Hellbred", "Bloodcut")


def random_ability(name: str, rng: random.Random, *, location: bool = False) -> AbilityDef:
    """A playable printing of keyword ``name``: one of its activations, a number, a modifier."""
    keyword = KEYWORDS.get(name) or CUSTOM[name]
    activations = sorted(keyword.activations, key=lambda a: a.value)
    blades = [a for a in activations if a.is_blade]
    # Blade abilities half the time they can be: combat is where abilities meet most.
    activation = rng.choice(blades if blades and rng.random() < 0.5 else activations)
    x: int | None = None
    if keyword.number is Number.REQUIRED:
        x = rng.randint(1, 3)
    elif keyword.number is Number.TARGETS:
        x = rng.choice([None, 1, 2])
    modifier: str | None = None
    if keyword.modifiers is Modifiers.TYPE:
        modifier = rng.choice(TYPES)
    elif keyword.modifiers is Modifiers.NAME:
        modifier = rng.choice(["Ekkyon", "Glorious"])
    elif keyword.modifiers is Modifiers.FILTER and rng.random() < 0.3:
        modifier = rng.choice(["Self", "Enemies", *TYPES])
    spawn_cost: int | None = None
    cost_x = False
    if activation is Activation.SPAWN:
        if keyword.number is Number.REQUIRED and rng.random() < 0.3:
            cost_x, x = True, None
        else:
            spawn_cost = rng.randint(0, 3)
    ability = AbilityDef(name, activation, x, modifier, spawn_cost, rng.random() < 0.1,
                         f"random {name}", cost_x)  # fmt: skip
    if location and check_ability(ability, location=True):
        return random_ability(rng.choice(NAMES), rng, location=True)
    assert check_ability(ability) is None, (ability, check_ability(ability))
    return ability


def random_warband(rng: random.Random, tag: str) -> Warband:
    minis = []
    for i in range(16):
        count = rng.choice((0, 1, 1, 2))
        location = rng.random() < 0.12
        abilities = tuple(
            random_ability(rng.choice(NAMES), rng, location=location) for _ in range(count)
        )
        if location:
            minis.append(MiniatureDef(f"{tag}-site-{i}", f"{tag} site {i}", MiniKind.LOCATION,
                                      rng.randint(1, 6), (rng.choice(list(Aspect)),),
                                      abilities=abilities))  # fmt: skip
        else:
            aspects = tuple(rng.choice(list(Aspect)) for _ in range(rng.randint(0, 2)))
            minis.append(MiniatureDef(f"{tag}-beast-{i}", f"{tag} beast {i}", MiniKind.CREATURE,
                                      rng.randint(1, 10), aspects, rng.randint(0, 5),
                                      rng.randint(1, 8), rng.randint(1, 12),
                                      lineage=rng.choice(LINEAGES),
                                      abilities=abilities))  # fmt: skip
    return Warband(tag, tuple(minis))


def random_setup(seed: int, turns_to_win: int = 2) -> GameSetup:
    """Two random ability warbands on the standard map."""
    rng = random.Random(f"ability warbands {seed}")
    return GameSetup(
        load_map(),
        (random_warband(rng, "a"), random_warband(rng, "b")),
        Options(turns_to_win=turns_to_win),
    )
