"""Blade assignment (303.1, 802.2c, 900.10) and damage modifiers (900.8), with Crit and
Fumble (glossary)."""

from __future__ import annotations

from dbnet.engine import (
    AbilityDef,
    Activation,
    Aspect,
    BladeChoice,
    Decision,
    DecisionKind,
    Game,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Placement,
    Position,
    Stage,
    Warband,
    Zone,
    format_choice,
    game_at,
    parse_choice,
)
from dbnet.engine.board import CELL_NAMES
from dbnet.engine.game import Mini


def creature(slug: str, *abilities: AbilityDef, power: int = 2) -> MiniatureDef:
    return MiniatureDef(slug, slug, MiniKind.CREATURE, 3, (Aspect.VALOR,), power, 20, 30,
                        abilities=abilities)  # fmt: skip


CRIT = AbilityDef("Crit", Activation.BLADE, x=3)
FUMBLE = AbilityDef("Fumble", Activation.BLADE, x=2)
MULTI_CRIT = AbilityDef("Crit", Activation.MULTIBLADE, x=1)
DOUBLE_CRIT = AbilityDef("Crit", Activation.DOUBLE_BLADE, x=5)


def combat_game(attackers: list[MiniatureDef]) -> Game:
    """A's ``attackers`` and one tough B creature ("wall") in c3; A strikes in c3.

    A second contested cell (a2) keeps the strike open after the combat, so damage
    can be looked at before the phase ends and clears it (802.2i).
    """
    setup = GameSetup(
        MapDef("flat", (0,) * 25),
        (
            Warband("a", (*attackers, creature("reserve"))),
            Warband("b", (creature("wall"), creature("other"))),
        ),
    )
    c3 = Placement(Zone.DREAMSCAPE, CELL_NAMES.index("c3"))
    a2 = Placement(Zone.DREAMSCAPE, CELL_NAMES.index("a2"))
    game = game_at(
        setup,
        Position(stage=Stage.STRIKE, placements=(c3,) * len(attackers) + (a2, c3, a2)),
    )
    game.apply(parse_choice(game, "attack c3"))
    return game


def wall(game: Game) -> Mini:
    return game.minis[-2]


def test_crit_adds_damage_after_the_blade_is_assigned_802_2c() -> None:
    game = combat_game([creature("striker", CRIT)])
    game.roll([2, 6])  # 2 damage and a blade; the only blade ability takes it at once
    assert wall(game).damage == 2 + 3


def test_a_negative_blade_ability_must_take_a_blade_900_10() -> None:
    game = combat_game([creature("thug", FUMBLE)])
    game.roll([3, 6])
    assert wall(game).damage == 1  # 3 - 2: the blade could not be left unassigned


def test_damage_bonus_never_takes_damage_below_zero_900_8() -> None:
    game = combat_game([creature("thug", FUMBLE)])
    game.roll([1, 6])
    assert wall(game).damage == 0


def test_player_chooses_which_ability_takes_the_blade_and_the_rest_are_lost() -> None:
    game = combat_game([creature("striker", CRIT), creature("thug", FUMBLE)])
    game.roll([6, 4, 4, 4])  # one blade, two candidates: a decision
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.kind is DecisionKind.BLADE
    assert pending.total == 1
    choices = game.legal_choices()
    assert choices == [BladeChoice(0, 0), BladeChoice(1, 0)]
    assert [format_choice(game, c) for c in choices] == ["blade striker crit", "blade thug fumble"]
    game.apply(parse_choice(game, "blade striker crit"))
    assert wall(game).damage == 3  # dice 0 + Crit 3; Fumble got no blade


def test_a_blade_ability_takes_one_blade_per_attack_303_1a() -> None:
    game = combat_game([creature("striker", CRIT)])
    game.roll([6, 6])
    assert wall(game).damage == 3  # the second blade has nowhere to go


def test_multiblade_takes_every_blade_303_1b() -> None:
    game = combat_game([creature("swarm", MULTI_CRIT, power=4)])
    game.roll([6, 6, 6, 1])
    assert wall(game).damage == 1 + 3


def test_double_blade_needs_two_blades_303_1c() -> None:
    one = combat_game([creature("brute", DOUBLE_CRIT)])
    one.roll([6, 2])
    assert wall(one).damage == 2
    two = combat_game([creature("brute", DOUBLE_CRIT)])
    two.roll([6, 6])
    assert wall(two).damage == 5


def test_blades_are_misses_without_blade_abilities() -> None:
    game = combat_game([creature("plain")])
    game.roll([6, 6])
    assert wall(game).damage == 0
    assert game.pending == Decision(game.active, DecisionKind.STRIKE)
