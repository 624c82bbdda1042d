"""Triggered effects (glossary: triggered ability), their order (900.7a), simultaneous
damage (900.7b) and disruption outside combat (900.3), driven by a test rule set."""

from __future__ import annotations

from collections.abc import Sequence

from dbnet.engine import (
    AbilityDef,
    Activation,
    Aspect,
    Decision,
    DecisionKind,
    Event,
    EventKind,
    Game,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    OrderChoice,
    Placement,
    Player,
    Position,
    Stage,
    Trigger,
    Warband,
    Zone,
    format_choice,
    game_at,
    parse_choice,
)
from dbnet.engine.abilities import NoAbilities
from dbnet.engine.board import CELL_NAMES


class Spikes(NoAbilities):
    """Test abilities. "Spikes X": whenever an enemy creature enters this creature's cell,
    deal X damage to it. "Alarm": whenever any creature enters this creature's cell,
    nothing happens but the effect is recorded. Records the order effects resolve in."""

    def __init__(self) -> None:
        self.resolved: list[str] = []

    def implements(self, keyword: str) -> bool:
        return keyword in ("Spikes", "Alarm")

    def triggers(self, game: Game, event: Event) -> Sequence[Trigger]:
        if event.kind is not EventKind.ENTERED:
            return ()
        entering = game.minis[event.mini]
        return [
            Trigger(m.owner, m.id, i, event)
            for m in game.minis
            if m.cell == event.cell and m is not entering
            for i, a in enumerate(m.defn.abilities)
            if a.keyword == "Alarm" or m.owner is not entering.owner
        ]

    def resolve_trigger(self, game: Game, trigger: Trigger) -> None:
        source = game.minis[trigger.mini]
        self.resolved.append(source.label)
        ability = source.defn.abilities[trigger.index]
        target = game.minis[trigger.event.mini]
        if ability.keyword == "Spikes" and target.cell == source.cell:
            assert ability.x is not None
            game.deal_damage(target, ability.x)


def cell(name: str) -> int:
    return CELL_NAMES.index(name)


def creature(slug: str, *abilities: AbilityDef) -> MiniatureDef:
    return MiniatureDef(slug, slug, MiniKind.CREATURE, 3, (Aspect.FEAR,), 1, 9, 9,
                        abilities=abilities)  # fmt: skip


def spiky(slug: str, x: int) -> MiniatureDef:
    return creature(slug, AbilityDef("Spikes", Activation.TRIGGERED, x=x))


ALARM = AbilityDef("Alarm", Activation.TRIGGERED)
RUNNER = MiniatureDef("runner", "runner", MiniKind.CREATURE, 3, (Aspect.VALOR,), 2, 3, 6)
BYSTANDER = MiniatureDef("bystander", "bystander", MiniKind.CREATURE, 3, (Aspect.VALOR,), 1, 5, 5)


def shift_game(
    b_minis: tuple[MiniatureDef, ...], b_cells: tuple[str, ...], a_extra: MiniatureDef = BYSTANDER
) -> tuple[Game, Spikes]:
    """A's shift: the runner in c2 is about to move into c3, where B's ``b_minis`` wait.

    A's second creature (in e1, or c3 when it is not the bystander) keeps the shift open
    after the runner moves, so damage can be seen before the phase ends (802.2i).
    """
    rules = Spikes()
    setup = GameSetup(
        MapDef("flat", (0,) * 25), (Warband("a", (RUNNER, a_extra)), Warband("b", b_minis))
    )
    extra_cell = "e1" if a_extra is BYSTANDER else "c3"
    placements = (
        Placement(Zone.DREAMSCAPE, cell("c2")),
        Placement(Zone.DREAMSCAPE, cell(extra_cell)),
        *(Placement(Zone.DREAMSCAPE, cell(c)) for c in b_cells),
    )
    game = game_at(setup, Position(stage=Stage.SHIFT, placements=placements), rules)
    return game, rules


def test_a_player_orders_their_own_simultaneous_triggers_900_7a() -> None:
    game, rules = shift_game((spiky("thorn", 1), spiky("briar", 1)), ("c3", "c3"))
    game.apply(parse_choice(game, "move runner c3"))
    assert game.pending == Decision(Player.B, DecisionKind.ORDER, minis=(2, 3))
    assert game.legal_choices() == [OrderChoice(0), OrderChoice(1)]
    assert format_choice(game, OrderChoice(1)) == "order 2"
    game.apply(parse_choice(game, "order 2"))
    assert rules.resolved == ["B:briar", "B:thorn"]
    assert game.minis[0].damage == 2  # 1 + 1, below defense 3: the runner stays
    assert game.minis[0].cell == cell("c3")
    assert game.pending == Decision(Player.A, DecisionKind.SHIFT)


def test_simultaneous_damage_adds_up_before_the_check_900_7b() -> None:
    # 3 + 3 damage: checked after both, it reaches life 6, so B chooses (802.2d);
    # checked after the first it would only have disrupted the runner out of the cell.
    game, _ = shift_game((spiky("thorn", 3), spiky("briar", 3)), ("c3", "c3"))
    game.apply(parse_choice(game, "move runner c3"))
    game.apply(parse_choice(game, "order 1"))
    pending = game.pending
    assert isinstance(pending, Decision)
    assert (pending.kind, pending.player, pending.minis) == (DecisionKind.FATE, Player.B, (0,))
    game.apply(parse_choice(game, "destroy runner"))
    assert game.minis[0].zone is Zone.GRAVEYARD
    assert game.kills == [0, 1]  # 803.2: B destroyed it
    assert game.bonus == [2, 0]  # 300.6: A gets 2 bonus spawn points


def test_damage_outside_combat_disrupts_and_the_damaging_player_places_it_900_3() -> None:
    game, _ = shift_game((spiky("thorn", 4),), ("c3",))
    game.apply(parse_choice(game, "move runner c3"))
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
    # One event (the runner entering c3) triggers A's and B's Alarm: A's phase, A's first.
    game, rules = shift_game((creature("b-alarm", ALARM),), ("c3",), creature("a-alarm", ALARM))
    game.apply(parse_choice(game, "move runner c3"))
    assert rules.resolved == ["A:a-alarm", "B:b-alarm"]
