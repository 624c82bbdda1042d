"""Activating abilities, and the stack of work they leave waiting.

An activated ability has its targets chosen (``State.choosing``), then its
effect happens (``effects.resolve``). Triggered effects and the queued parts of
effects (moves, special attacks, rolls) wait on ``State.stack``, innermost
last: what an effect triggers resolves before the rest of that effect
(glossary: triggered ability, 900.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbnet.engine import effects, zones
from dbnet.engine.abilities import Event, EventKind, Trigger, is_active, triggers
from dbnet.engine.combat import Purpose, Rolling
from dbnet.engine.effects import Op, OpKind
from dbnet.engine.enums import Phase, Zone
from dbnet.engine.model import Player
from dbnet.engine.rules import CREATURES_PER_PLAYER_PER_CELL
from dbnet.engine.targets import Targeting, needs_targets, number

if TYPE_CHECKING:
    from dbnet.engine.choices import ActivateChoice
    from dbnet.engine.game import Game


def activate(
    game: Game,
    holder: int,
    source: int,
    index: int,
    controller: Player,
    chosen_x: int = 0,
    context: int = -1,
) -> None:
    """Activate an ability: its targets are chosen now (a TARGET decision unless there
    is one way or none), then its effect happens (900.9, FAQ: targeting)."""
    ability = game.ability_def(source, index)
    targeting = Targeting(
        holder, source, index, ability, controller, number(ability, chosen_x), context
    )
    if needs_targets(ability):
        game.choosing = targeting  # advance offers the targets or takes the only one
    else:
        effects.resolve(game, targeting, ())


def activate_spawn_ability(game: Game, choice: ActivateChoice) -> None:
    m = game.minis[choice.mini]
    ability = m.abilities[choice.index]
    game.spawn_points -= choice.x if ability.cost_x else (ability.spawn_cost or 0)
    game.spawn_uses.append((choice.mini, choice.index))
    activate(game, m.id, m.id, choice.index, m.owner, chosen_x=choice.x)


def run_op(game: Game) -> None:
    """Do the next queued part of the innermost effect."""
    frame = game.stack[-1]
    op = frame.pop(0)
    assert isinstance(op, Op)
    if not frame:
        game.stack.pop()
    m = game.minis[op.mini]
    if op.kind is OpKind.MOVE:
        # 900.1c, 900.13: a target that left, or a cell now full, is skipped.
        if (
            m.cell >= 0
            and m.is_creature
            and m.cell != op.arg
            and game.creatures[m.owner][op.arg] < CREATURES_PER_PLAYER_PER_CELL
        ):
            zones.move(game, m, op.arg)
    elif op.kind is OpKind.SWAP:
        other = game.minis[op.arg]
        if (
            m.cell >= 0
            and other.cell >= 0
            and m.cell != other.cell
            and m.is_creature
            and other.is_creature
        ):
            here, there = m.cell, other.cell
            zones.place(game, m, Zone.DREAMSCAPE, there)
            zones.place(game, other, Zone.DREAMSCAPE, here)
            emit(game, EventKind.ENTERED, m.id, there)
            emit(game, EventKind.ENTERED, other.id, here)
    elif op.kind is OpKind.ATTACK:
        game.start_special(op.mini, op.extra, op.arg)
    elif op.kind is OpKind.STRIKEBACK:
        # The attack is over and checked: it disrupted or destroyed its target, or nothing.
        if game.minis[op.arg].cell == op.extra:
            found = strikebacks(game, m.owner.other, op.extra)
            if found:
                push_triggers(game, found)
    else:
        assert op.kind is OpKind.WAIL
        game.rolling = Rolling(Purpose.WAIL, m.owner, 2, [], attacker=m.id)


def strikebacks(game: Game, owner: Player, cell: int) -> list[Trigger]:
    """``owner``'s active Strikeback abilities in ``cell``, as triggers."""
    return [
        Trigger(owner, mini, index, Event(EventKind.COMBAT_ENDED, -1, cell))
        for mini, index, ability in game.rules.statics.of("Strikeback")
        if game.minis[mini].owner is owner
        and game.minis[mini].cell == cell
        and is_active(game, game.minis[mini], ability)
    ]


def emit(game: Game, kind: EventKind, mini: int = -1, cell: int = -1) -> None:
    """An event happened: what it triggers waits on the stack."""
    if game.rules.statics.by_event[kind]:
        found = triggers(game, kind, mini, cell)
        if found:
            push_triggers(game, found)


def push_triggers(game: Game, found: list[Trigger]) -> None:
    """Triggers join the simultaneous ones waiting on top, or wait in a frame of their
    own above the effect that raised them."""
    frame = trigger_frame(game)
    if frame is not None:
        frame.extend(found)
    else:
        game.stack.append(found)


def ops_wait(game: Game) -> bool:
    """Whether the rest of an effect waits for the check of damage dealt outside combat
    (900.3): that check comes before the effect moves its next miniature (a new event,
    so not simultaneous, 900.7b) and before a Strikeback answers an attack, and the
    effect goes on once the check is over."""
    if trigger_frame(game) is not None:
        return False
    combat = game.combat
    if combat is not None:
        return combat.cell < 0
    op = game.stack[-1][0]
    return (
        game.damaged_outside_combat
        and isinstance(op, Op)
        and op.kind in (OpKind.MOVE, OpKind.SWAP, OpKind.STRIKEBACK)
    )


def resolve_next_trigger(game: Game) -> bool:
    """Resolve one waiting triggered effect; True if a player must order theirs first.

    900.7a: the effects of the player whose phase it is go first (the first
    player's in shared phases); a player with several chooses their order.
    """
    player = trigger_player(game)
    mine = waiting_triggers(game, player)
    if len(mine) > 1:
        return True
    resolve_trigger(game, pop_trigger(game, mine[0]))
    return False


def trigger_player(game: Game) -> Player:
    """Whose waiting effects resolve next (900.7a): the player whose phase it is (the
    first player in shared phases) while they have any, then the other."""
    priority = game.active if game.phase in (Phase.SPAWN, Phase.ACTION) else game.first
    return priority if waiting_triggers(game, priority) else priority.other


def waiting_triggers(game: Game, player: Player) -> list[int]:
    """The positions in the top frame of ``player``'s waiting effects."""
    frame = trigger_frame(game)
    assert frame is not None
    return [i for i, t in enumerate(frame) if t.controller is player]


def trigger_frame(game: Game) -> list[Trigger] | None:
    """The innermost frame of the stack when it holds triggered effects."""
    if game.stack:
        frame = game.stack[-1]
        if isinstance(frame[0], Trigger):
            return frame
    return None


def pop_trigger(game: Game, position: int) -> Trigger:
    frame = trigger_frame(game)
    assert frame is not None
    trigger = frame.pop(position)
    if not frame:
        game.stack.pop()
    return trigger


def resolve_trigger(game: Game, trigger: Trigger) -> None:
    activate(game, trigger.mini, trigger.mini, trigger.index, trigger.controller,
             context=trigger.event.mini)  # fmt: skip
