"""``Game``'s API on misuse: precise errors, nothing changed; setup checks (600.1, 600.3,
abilities the engine can't play); ``game_at`` refusing broken positions."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

import pytest

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
from dbnet.engine.game import EndReason, Game, Phase, Zone
from dbnet.engine.model import (
    AbilityDef,
    Activation,
    GameSetup,
    MiniatureDef,
    MiniKind,
    Player,
    Warband,
)
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
    with pytest.raises(DataError, match=r"600\.1: 17 miniatures \(at most 16\)") as info:
        Game(with_warband(player, Warband("big", (*band.minis, extra))))
    assert "'big'" in info.value.where
    assert len(Game(with_warband(player, Warband("full", band.minis))).minis) == 32
    assert len(Game(with_warband(player, Warband("small", band.minis[:3]))).minis) == 19


@pytest.mark.parametrize("player", [Player.A, Player.B])
def test_game_refuses_four_copies(player: Player) -> None:
    """600.3: up to three copies of a miniature."""
    other = creature("other", 1, ASH_SENTINEL.aspects, 1, 1, 1)
    with pytest.raises(DataError, match=r"600\.3: 4 copies of 'Ash Sentinel' \(at most 3\)"):
        Game(with_warband(player, Warband("copies", (ASH_SENTINEL,) * 4 + (other,))))
    game = Game(with_warband(player, Warband("three", (ASH_SENTINEL,) * 3 + (other,))))
    handles = [m.handle for m in game.minis if m.owner is player]
    assert handles == ["ash-sentinel#1", "ash-sentinel#2", "ash-sentinel#3", "other"]


UNKNOWN = AbilityDef("Mystery", Activation.BLADE, text="Nobody knows what this does.")
CRIT = AbilityDef("Crit", Activation.BLADE, x=2, text="Crit 2")


def test_game_refuses_abilities_it_cannot_play() -> None:
    critter = replace(creature("critter", 3, ASH_SENTINEL.aspects, 2, 2, 2), abilities=(UNKNOWN,))
    setup = with_warband(Player.B, Warband("abilities", (*WARBAND_B.minis[:15], critter)))
    with pytest.raises(DataError, match="'Mystery' can't be played") as info:
        Game(setup)
    assert "Critter" in info.value.where
    game = Game(setup, allow_unimplemented=True)
    assert game.minis[31].defn is critter
    assert game.minis[31].abilities[0].activation is Activation.UNKNOWN  # inert


@pytest.mark.parametrize(
    ("ability", "problem"),
    [
        (AbilityDef("Crit", Activation.BLADE), "needs a number"),
        (AbilityDef("Crit", Activation.ALWAYS, x=2), "never a always ability"),
        (AbilityDef("Bolster", Activation.BLADE, x=2), "never a blade ability"),
        (AbilityDef("Loner", x=1), "takes no number"),
        (AbilityDef("Fight", x=2), "needs an aspect or lineage"),
        (AbilityDef("Bolster", x=1, modifier="Wizards"), "modifier must be"),
    ],
)
def test_game_refuses_a_keyword_printed_the_wrong_way(ability: AbilityDef, problem: str) -> None:
    odd = replace(creature("odd", 3, ASH_SENTINEL.aspects, 2, 2, 2), abilities=(ability,))
    setup = with_warband(Player.B, Warband("abilities", (*WARBAND_B.minis[:15], odd)))
    with pytest.raises(DataError, match=problem):
        Game(setup)


def test_game_refuses_a_creatures_keyword_on_a_location() -> None:
    site = MiniatureDef("site", "Site", MiniKind.LOCATION, 3, ASH_SENTINEL.aspects,
                        abilities=(AbilityDef("Ambush", x=2),))  # fmt: skip
    setup = with_warband(Player.B, Warband("abilities", (*WARBAND_B.minis[:15], site)))
    with pytest.raises(DataError, match="Ambush is a creature's ability; a location can't use it"):
        Game(setup)


def test_game_plays_a_glossary_keyword() -> None:
    critter = replace(creature("critter", 3, ASH_SENTINEL.aspects, 2, 2, 2), abilities=(CRIT,))
    setup = with_warband(Player.B, Warband("abilities", (*WARBAND_B.minis[:15], critter)))
    assert Game(setup).minis[31].abilities == (CRIT,)


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


def damage_game() -> Game:
    """One of A's hounds has attacked in c3 and rolled 1 damage (a 1 and a 5) to split
    between B's four creatures there."""
    game = game_at(VANILLA_SETUP, strike_position())
    game.apply(AttackChoice(cell("c3"), (mini_id(Player.A, "cinder-hound#1"),)))
    game.roll((1, 5))
    return game
