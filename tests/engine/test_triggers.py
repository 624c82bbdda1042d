"""Triggered effects (glossary: triggered ability), their order (900.7a), simultaneous
damage (900.7b) and disruption outside combat (900.3), with Ambush and Charge."""

from __future__ import annotations

import pytest

from dbnet.engine import (
    AbilityDef,
    Aspect,
    ChanceKind,
    ChanceRequest,
    Decision,
    DecisionKind,
    Game,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    OrderChoice,
    Pending,
    Placement,
    Player,
    Position,
    Stage,
    Warband,
    Zone,
    format_choice,
    game_at,
    parse_choice,
)
from dbnet.engine.board import CELL_NAMES
from dbnet.errors import IllegalChoiceError


def pending(game: Game) -> Pending | None:
    """The pending item (a function, so that checks of it don't narrow each other's type)."""
    return game.pending


def cell(name: str) -> int:
    return CELL_NAMES.index(name)


def creature(slug: str, *abilities: AbilityDef, defense: int = 9, life: int = 9) -> MiniatureDef:
    return MiniatureDef(slug, slug, MiniKind.CREATURE, 3, (Aspect.FEAR,), 1, defense, life,
                        abilities=abilities)  # fmt: skip


def ambusher(slug: str, x: int) -> MiniatureDef:
    return creature(slug, AbilityDef("Ambush", x=x))


RUNNER = MiniatureDef("runner", "runner", MiniKind.CREATURE, 3, (Aspect.VALOR,), 2, 3, 6)
CHARGER = MiniatureDef("runner", "runner", MiniKind.CREATURE, 3, (Aspect.VALOR,), 2, 3, 6,
                       abilities=(AbilityDef("Charge", x=1),))  # fmt: skip
BYSTANDER = MiniatureDef("bystander", "bystander", MiniKind.CREATURE, 3, (Aspect.VALOR,), 1, 5, 5)


def shift_game(b_minis: tuple[MiniatureDef, ...], runner: MiniatureDef = RUNNER) -> Game:
    """A's shift: the runner in c2 is about to move into c3, where B's ``b_minis`` wait.

    A's bystander in e1 keeps the shift open after the runner moves, so damage can be
    seen before the phase ends (802.2i).
    """
    setup = GameSetup(
        MapDef("flat", (0,) * 25), (Warband("a", (runner, BYSTANDER)), Warband("b", b_minis))
    )
    placements = (
        Placement(Zone.DREAMSCAPE, cell("c2")),
        Placement(Zone.DREAMSCAPE, cell("e1")),
        *(Placement(Zone.DREAMSCAPE, cell("c3")) for _ in b_minis),
    )
    return game_at(setup, Position(stage=Stage.SHIFT, placements=placements))


def test_a_player_orders_their_own_simultaneous_triggers_900_7a() -> None:
    game = shift_game((ambusher("thorn", 1), ambusher("briar", 2)))
    game.apply(parse_choice(game, "move runner c3"))
    assert game.pending == Decision(Player.B, DecisionKind.ORDER, minis=(2, 3), ability=(0, 0))
    assert game.legal_choices() == [OrderChoice(0), OrderChoice(1)]
    assert format_choice(game, OrderChoice(1)) == "order 2"
    game.apply(parse_choice(game, "order 2"))
    # Briar's Ambush 2 attacks first: two special-attack dice, B's.
    assert pending(game) == ChanceRequest(ChanceKind.SPECIAL, 2, owner=Player.B)
    game.roll([1, 4])  # 1 damage
    assert pending(game) == ChanceRequest(ChanceKind.SPECIAL, 1, owner=Player.B)
    game.roll([1])  # thorn's Ambush 1: 1 more
    assert game.minis[0].damage == 2  # below defense 3: the runner stays
    assert game.minis[0].cell == cell("c3")
    assert game.pending == Decision(Player.A, DecisionKind.SHIFT)


def test_simultaneous_damage_adds_up_before_the_check_900_7b() -> None:
    # 3 + 3 damage: checked after both, it reaches life 6, so B chooses (802.2d);
    # checked after the first it would only have disrupted the runner out of the cell.
    game = shift_game((ambusher("thorn", 1), ambusher("briar", 1)))
    game.apply(parse_choice(game, "move runner c3"))
    game.apply(parse_choice(game, "order 1"))
    game.roll([3])
    game.roll([3])
    pending = game.pending
    assert isinstance(pending, Decision)
    assert (pending.kind, pending.player, pending.minis) == (DecisionKind.FATE, Player.B, (0,))
    game.apply(parse_choice(game, "destroy runner"))
    assert game.minis[0].zone is Zone.GRAVEYARD
    assert game.kills == [0, 1]  # 803.2: B destroyed it
    assert game.bonus == [2, 0]  # 300.6: A gets 2 bonus spawn points


def test_damage_outside_combat_disrupts_and_the_damaging_player_places_it_900_3() -> None:
    game = shift_game((ambusher("thorn", 2),))
    game.apply(parse_choice(game, "move runner c3"))
    game.roll([2, 2])  # 4 damage: defense 3 reached, life 6 not
    pending = game.pending
    assert isinstance(pending, Decision)
    assert (pending.kind, pending.player) == (DecisionKind.RESOLVE, Player.B)
    choices = [format_choice(game, c) for c in game.legal_choices() or []]
    assert "place runner a5" not in choices  # never into the disrupting player's portal
    assert "place runner c3" not in choices  # the cell is not empty
    game.apply(parse_choice(game, "place runner a1"))
    runner = game.minis[0]
    assert (runner.cell, runner.damage) == (cell("a1"), 0)  # 802.2f: damage clears
    assert game.pending == Decision(Player.A, DecisionKind.SHIFT)


def test_the_active_players_triggers_resolve_first_900_7a() -> None:
    # FAQ, Charge meeting Ambush: one event (the charger entering c3) triggers A's Charge
    # and B's Ambush; it is A's phase, so A's Charge resolves (and rolls) first.
    game = shift_game((ambusher("thorn", 2),), runner=CHARGER)
    game.apply(parse_choice(game, "move runner c3"))
    assert pending(game) == ChanceRequest(ChanceKind.SPECIAL, 1, owner=Player.A)
    game.roll([2])
    assert pending(game) == ChanceRequest(ChanceKind.SPECIAL, 2, owner=Player.B)
    game.roll([1, 4])
    assert (game.minis[2].damage, game.minis[0].damage) == (2, 1)


def test_an_order_beyond_the_waiting_effects_says_how_many_wait() -> None:
    game = shift_game((ambusher("thorn", 1), ambusher("briar", 2)))
    game.apply(parse_choice(game, "move runner c3"))
    state = game.state_hash()
    with pytest.raises(IllegalChoiceError, match="2 effects wait; choose one of 'order 1' to"):
        game.apply(parse_choice(game, "order 9"))
    assert game.state_hash() == state
