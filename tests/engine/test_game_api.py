"""``Game``'s API on misuse: precise errors, nothing changed; setup checks (600.1, 600.3,
unimplemented abilities); ``game_at`` refusing broken positions; and the ``AbilityRules``
hook, whose stat modifiers the engine clamps to the 900.8 minimums."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

import pytest

from dbnet.engine.abilities import NoAbilities, Stat
from dbnet.engine.board import PORTAL, parse_cell
from dbnet.engine.choices import (
    DONE,
    AttackChoice,
    ChanceKind,
    ChanceRequest,
    DamageChoice,
    Decision,
    DecisionKind,
    SpawnChoice,
)
from dbnet.engine.game import EndReason, Game, Mini, Phase, Zone
from dbnet.engine.model import AbilityDef, Activation, GameSetup, Player, Warband
from dbnet.engine.position import Placement, Position, Stage, game_at
from dbnet.errors import DataError, GameOverError, IllegalChoiceError, InvalidChoiceError

from .conftest import ASH_SENTINEL, VANILLA_SETUP, WARBAND_A, WARBAND_B, creature
from .randomgame import play


def cell(name: str) -> int:
    c = parse_cell(name)
    assert c is not None
    return c


def mini_id(player: Player, handle: str) -> int:
    game = Game(VANILLA_SETUP)
    return next(m.id for m in game.minis if m.owner is player and m.handle == handle)


def placements(where: Mapping[int, Placement]) -> tuple[Placement, ...]:
    """One placement per miniature of the vanilla game; the rest stay in reserves."""
    return tuple(where.get(i, Placement()) for i in range(32))


def in_cell(name: str, damage: int = 0) -> Placement:
    return Placement(Zone.DREAMSCAPE, cell(name), damage)


def finished_game() -> Game:
    game = Game(VANILLA_SETUP)
    for _ in play(game, random.Random(0)):
        pass
    assert game.is_over
    return game


# --- misuse ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["resigned", "won"])
def test_game_apply_after_the_end(how: str) -> None:
    if how == "resigned":
        game = Game(VANILLA_SETUP)
        game.roll((4, 3))
        game.resign(Player.A)
    else:
        game = finished_game()
    state, encoded = game.state_hash(), game.encode()
    with pytest.raises(GameOverError, match="over"):
        game.apply(DONE)
    with pytest.raises(GameOverError, match="over"):
        game.roll((3, 4))
    with pytest.raises(GameOverError, match="over"):
        game.resign(Player.B)
    assert game.state_hash() == state
    assert game.encode() == encoded
    assert game.pending is None
    assert game.legal_choices() is None


def test_game_roll_while_a_decision_is_pending() -> None:
    game = Game(VANILLA_SETUP)
    game.roll((5, 2))
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.kind is DecisionKind.SPAWN
    state = game.state_hash()
    with pytest.raises(IllegalChoiceError, match="spawn decision by A"):
        game.roll((3,))
    assert game.state_hash() == state


def test_game_apply_while_dice_are_expected() -> None:
    game = Game(VANILLA_SETUP)
    state = game.state_hash()
    with pytest.raises(IllegalChoiceError, match="2 initiative dice"):
        game.apply(DONE)
    assert game.state_hash() == state


@pytest.mark.parametrize("dice", [(), (3,), (3, 4, 5)])
def test_game_roll_with_the_wrong_number_of_dice(dice: tuple[int, ...]) -> None:
    game = Game(VANILLA_SETUP)
    assert game.pending == ChanceRequest(ChanceKind.INITIATIVE, 2, players=(Player.A, Player.B))
    state = game.state_hash()
    with pytest.raises(InvalidChoiceError, match=f"needs 2 dice, got {len(dice)}"):
        game.roll(dice)
    assert game.state_hash() == state


@pytest.mark.parametrize("value", [0, 7, -1, True, 2.0, "3", None])
def test_game_roll_with_a_bad_die(value: object) -> None:
    game = Game(VANILLA_SETUP)
    state = game.state_hash()
    with pytest.raises(InvalidChoiceError) as info:
        game.roll((4, value))  # type: ignore[arg-type]
    assert repr(value) in str(info.value)
    assert game.state_hash() == state


def test_game_apply_rejects_a_bool_for_a_miniature() -> None:
    """True is no miniature id, as it is no die value (``roll`` refuses it)."""
    game = Game(VANILLA_SETUP)
    game.roll((4, 3))
    assert mini_id(Player.A, "ash-sentinel#2") == 1  # the miniature True would stand for
    state = game.state_hash()
    with pytest.raises(InvalidChoiceError):
        game.apply(SpawnChoice(True, PORTAL[Player.A]))
    assert game.state_hash() == state


def test_game_apply_rejects_a_bool_for_an_amount_of_damage() -> None:
    game = damage_game()
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.total == 1
    state = game.state_hash()
    with pytest.raises(InvalidChoiceError):
        game.apply(DamageChoice(((pending.targets[0], True),)))
    assert game.state_hash() == state


def test_game_resign() -> None:
    game = Game(VANILLA_SETUP)
    game.resign(Player.A)
    assert game.is_over
    assert game.winner is Player.B
    assert game.end_reason is EndReason.RESIGNATION
    assert game.pending is None
    assert game.legal_choices() is None
    assert game.phase is Phase.OVER
    assert game.turns_won == [0, 0]


def test_game_resign_mid_game() -> None:
    game = Game(VANILLA_SETUP)
    for i, _ in enumerate(play(game, random.Random(5))):
        if i == 60:
            break
    assert not game.is_over
    turns_won = list(game.turns_won)
    game.resign(Player.B)
    assert game.winner is Player.A
    assert game.end_reason is EndReason.RESIGNATION
    assert game.turns_won == turns_won


# --- setup checks ------------------------------------------------------------------


def with_warband(player: Player, warband: Warband) -> GameSetup:
    bands = [WARBAND_A, WARBAND_B]
    bands[player] = warband
    return replace(VANILLA_SETUP, warbands=(bands[0], bands[1]))


@pytest.mark.parametrize("player", [Player.A, Player.B])
def test_game_refuses_a_warband_over_16(player: Player) -> None:
    """600.1: up to 16 miniatures."""
    extra = creature("one-too-many", 1, ASH_SENTINEL.aspects, 1, 1, 1)
    band = VANILLA_SETUP.warbands[player]
    with pytest.raises(DataError, match=r"17 miniatures.*600\.1") as info:
        Game(with_warband(player, Warband("big", (*band.minis, extra))))
    assert "'big'" in info.value.where
    assert len(Game(with_warband(player, Warband("full", band.minis))).minis) == 32
    assert len(Game(with_warband(player, Warband("small", band.minis[:3]))).minis) == 19


@pytest.mark.parametrize("player", [Player.A, Player.B])
def test_game_refuses_four_copies(player: Player) -> None:
    """600.3: up to three copies of a miniature."""
    other = creature("other", 1, ASH_SENTINEL.aspects, 1, 1, 1)
    with pytest.raises(DataError, match=r"4 copies of 'ash-sentinel'.*600\.3"):
        Game(with_warband(player, Warband("copies", (ASH_SENTINEL,) * 4 + (other,))))
    game = Game(with_warband(player, Warband("three", (ASH_SENTINEL,) * 3 + (other,))))
    handles = [m.handle for m in game.minis if m.owner is player]
    assert handles == ["ash-sentinel#1", "ash-sentinel#2", "ash-sentinel#3", "other"]


CRIT = AbilityDef("Crit", Activation.BLADE, x=2, text="Crit 2")


def test_game_refuses_unimplemented_abilities() -> None:
    critter = replace(creature("critter", 3, ASH_SENTINEL.aspects, 2, 2, 2), abilities=(CRIT,))
    setup = with_warband(Player.B, Warband("abilities", (*WARBAND_B.minis[:15], critter)))
    with pytest.raises(DataError, match="'Crit' is not implemented") as info:
        Game(setup)
    assert "Critter" in info.value.where
    assert Game(setup, allow_unimplemented=True).minis[31].defn is critter
    assert Game(setup, Modifiers({}, implemented=("Crit",))).minis[31].defn is critter


# --- game_at -----------------------------------------------------------------------


def test_game_at_accepts_a_sound_position() -> None:
    a_hounds = [mini_id(Player.A, f"cinder-hound#{i}") for i in (1, 2)]
    b_hound = mini_id(Player.B, "cinder-hound#1")
    shrine = mini_id(Player.A, "shrine-of-echoes")
    where = {a_hounds[0]: in_cell("c3", 1), a_hounds[1]: in_cell("c3"), b_hound: in_cell("c3")}
    where[shrine] = in_cell("c3")
    game = game_at(VANILLA_SETUP, Position(stage=Stage.STRIKE, placements=placements(where)))
    assert game.creatures[Player.A][cell("c3")] == 2
    assert game.creatures[Player.B][cell("c3")] == 1
    assert game.location_at[cell("c3")] == shrine
    assert game.minis[a_hounds[0]].damage == 1
    assert set(game.legal_choices() or []) == {
        AttackChoice(cell("c3"), tuple(a_hounds)),
        AttackChoice(cell("c3"), (a_hounds[0],)),
        AttackChoice(cell("c3"), (a_hounds[1],)),
        DONE,
    }


def five_creatures(player: Player) -> list[int]:
    game = Game(VANILLA_SETUP)
    return [m.id for m in game.minis if m.owner is player and m.defn.is_creature][:5]


@pytest.mark.parametrize(
    ("player", "where", "legal"),
    [
        (Player.A, "c3", False),
        (Player.A, "e1", True),  # 801.6: one's own portal holds any number
        (Player.A, "a5", False),  # glossary, portal: four in an enemy portal
        (Player.B, "a5", True),
        (Player.B, "e1", False),
    ],
)
def test_game_at_checks_the_stacking_limit(player: Player, where: str, legal: bool) -> None:
    """301.1a: at most four creatures per player in a cell, except in one's own portal."""
    position = Position(placements=placements({i: in_cell(where) for i in five_creatures(player)}))
    if legal:
        assert game_at(VANILLA_SETUP, position).creatures[player][cell(where)] == 5
    else:
        with pytest.raises(DataError, match="5 creatures"):
            game_at(VANILLA_SETUP, position)
    four = Position(placements=placements({i: in_cell(where) for i in five_creatures(player)[:4]}))
    assert game_at(VANILLA_SETUP, four).creatures[player][cell(where)] == 4


@pytest.mark.parametrize(
    ("where", "problem"),
    [
        (
            {
                mini_id(Player.A, "shrine-of-echoes"): in_cell("c3"),
                mini_id(Player.B, "bone-spire"): in_cell("c3"),
            },
            "two locations",  # 301.1a
        ),
        (
            {
                mini_id(Player.A, "shrine-of-echoes"): in_cell("e1"),
                mini_id(Player.A, "bone-spire"): in_cell("e1"),
            },
            "two locations",  # 801.6: one location in the portal too
        ),
        ({0: Placement(Zone.RESERVES, damage=1)}, "damage"),
        ({0: Placement(Zone.GRAVEYARD, damage=2)}, "damage"),
        ({0: in_cell("c3", damage=-1)}, "damage"),
        ({mini_id(Player.A, "bone-spire"): in_cell("c3", damage=1)}, "locations take no damage"),
        ({0: Placement(Zone.DREAMSCAPE)}, "needs a cell"),
        ({0: Placement(Zone.DREAMSCAPE, 25)}, "needs a cell"),
        ({0: Placement(Zone.RESERVES, cell("c3"))}, "has no cell"),
        ({0: Placement(Zone.GRAVEYARD, cell("c3"))}, "has no cell"),
    ],
)
def test_game_at_rejects_broken_positions(where: dict[int, Placement], problem: str) -> None:
    with pytest.raises(DataError, match=problem) as info:
        game_at(VANILLA_SETUP, Position(placements=placements(where)))
    assert info.value.where.startswith("position")


def test_game_at_rejects_too_many_placements() -> None:
    with pytest.raises(DataError, match="33 placements"):
        game_at(VANILLA_SETUP, Position(placements=(Placement(),) * 33))


# --- the ability hook ----------------------------------------------------------------


class Modifiers(NoAbilities):
    """Rules that add a fixed modifier to each stat of every miniature (and otherwise
    behave as the rulebook without abilities)."""

    def __init__(self, by_stat: Mapping[Stat, int], implemented: tuple[str, ...] = ()) -> None:
        self.by_stat = dict(by_stat)
        self.implemented = implemented

    def implements(self, keyword: str) -> bool:
        return keyword in self.implemented

    def stat_modifier(self, game: Game, mini: Mini, stat: Stat) -> int:
        return self.by_stat.get(stat, 0)


def base(m: Mini, stat: Stat) -> int:
    return (m.defn.power, m.defn.defense, m.defn.life, m.defn.spawn_cost)[stat]


@pytest.mark.parametrize("modifier", [-10, -1, 0, 2])
def test_game_stat_applies_modifiers_and_the_900_8_minimums(modifier: int) -> None:
    """900.8: power and cost can't go below 0, defense and life can't go below 1."""
    minimum = {Stat.POWER: 0, Stat.DEFENSE: 1, Stat.LIFE: 1, Stat.COST: 0}
    game = Game(VANILLA_SETUP, Modifiers(dict.fromkeys(Stat, modifier)))
    for m in game.minis:
        if not m.defn.is_creature:
            continue
        for stat in Stat:
            assert game.stat(m, stat) == max(minimum[stat], base(m, stat) + modifier), (m, stat)
        assert game.power(m) == game.stat(m, Stat.POWER)
        assert game.defense(m) == game.stat(m, Stat.DEFENSE)
        assert game.life(m) == game.stat(m, Stat.LIFE)


def test_game_spawns_with_modified_costs() -> None:
    """A cost modifier reaches the spawn phase; the aspect shortfall (801.4) still counts."""
    leviathan = mini_id(Player.A, "dream-leviathan")  # cost 12, aspects P P V
    spawn = SpawnChoice(leviathan, PORTAL[Player.A])
    cases = ((Modifiers({}), False, 15), (Modifiers({Stat.COST: -20}), True, 3))
    for rules, affordable, cost in cases:
        game = Game(VANILLA_SETUP, rules)
        game.roll((4, 3))
        assert game.spawn_cost(game.minis[leviathan]) == cost
        assert (spawn in (game.legal_choices() or [])) is affordable
        if affordable:
            game.apply(spawn)
            assert game.spawn_points == 7 - cost


def strike_position() -> Position:
    """A strikes in c3 with both cinder hounds (power 2 each) against B's two cinder
    hounds (defense 1, life 2) and B's two ash sentinels (defense 2, life 2).

    A second contested cell (a2) keeps the strike open after the combat in c3, so
    damage can be looked at before the end of the phase clears it (802.2i).
    """
    where = {mini_id(Player.A, f"cinder-hound#{i}"): in_cell("c3") for i in (1, 2)}
    for handle in ("cinder-hound#1", "cinder-hound#2", "ash-sentinel#1", "ash-sentinel#2"):
        where[mini_id(Player.B, handle)] = in_cell("c3")
    where[mini_id(Player.A, "ash-sentinel#1")] = in_cell("a2")
    where[mini_id(Player.B, "mire-wisp#1")] = in_cell("a2")
    return Position(stage=Stage.STRIKE, placements=placements(where))


@pytest.mark.parametrize(("modifier", "dice"), [(0, 4), (1, 6), (-1, 2), (-10, 0)])
def test_game_attack_dice_follow_modified_power(modifier: int, dice: int) -> None:
    """302: one attack die per point of power; 900.5: no dice at 0 power."""
    game = game_at(VANILLA_SETUP, strike_position(), Modifiers({Stat.POWER: modifier}))
    attackers = tuple(mini_id(Player.A, f"cinder-hound#{i}") for i in (1, 2))
    game.apply(AttackChoice(cell("c3"), attackers))
    pending = game.pending
    if dice:
        assert pending == ChanceRequest(ChanceKind.ATTACK, dice, owner=Player.A)
    else:
        # No dice, no damage: the combat is over and the strike goes on.
        assert isinstance(pending, Decision)
        assert pending.kind is DecisionKind.STRIKE
        assert all(m.damage == 0 for m in game.minis)
        assert [c.cell for c in game.legal_choices() or [] if isinstance(c, AttackChoice)] == [
            cell("a2")
        ]


def damage_game(rules: Modifiers | None = None) -> Game:
    """One of A's hounds has attacked in c3 and rolled 1 damage (a 1 and a 5) to split
    between B's four creatures there."""
    game = game_at(VANILLA_SETUP, strike_position(), rules or Modifiers({}))
    game.apply(AttackChoice(cell("c3"), (mini_id(Player.A, "cinder-hound#1"),)))
    game.roll((1, 5))
    return game


@pytest.mark.parametrize(("modifier", "disrupted"), [(0, False), (-10, True)])
def test_game_disrupts_with_modified_defense(modifier: int, disrupted: bool) -> None:
    """802.2d: damage at least equal to defense disrupts; defense is clamped to 1 (900.8)."""
    game = damage_game(Modifiers({Stat.DEFENSE: modifier}))
    sentinel = mini_id(Player.B, "ash-sentinel#1")  # defense 2, life 2
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.kind is DecisionKind.DAMAGE
    assert pending.total == 1
    assert sentinel in pending.targets
    game.apply(DamageChoice(((sentinel, 1),)))
    pending = game.pending
    assert isinstance(pending, Decision)
    if disrupted:
        # Combat step 7: A places the disrupted sentinel in an empty cell.
        assert pending.kind is DecisionKind.RESOLVE
        assert pending.minis == (sentinel,)
    else:
        assert pending.kind is DecisionKind.STRIKE
        assert game.minis[sentinel].damage == 1
        assert game.minis[sentinel].cell == cell("c3")
