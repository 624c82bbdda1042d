"""Activating abilities: their targets are chosen, then their effect happens.

An activated ability has its targets chosen (``State.choosing``, a TARGET decision
unless there is one way or none), then its effect happens (``effects.resolve``);
a triggered ability waiting on the stack (``stack``) is activated the same way when
it resolves (900.9, FAQ: targeting; 900.7a for the order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbnet.engine import effects, stack
from dbnet.engine.abilities import ability_def
from dbnet.engine.model import Player
from dbnet.engine.targets import needs_targets, number
from dbnet.engine.waiting import Targeting, Trigger

if TYPE_CHECKING:
    from dbnet.engine.choices import ActivateChoice
    from dbnet.engine.state import State


def activate(
    game: State,
    holder: int,
    source: int,
    index: int,
    controller: Player,
    chosen_x: int = 0,
    context: int = -1,
) -> None:
    """Activate an ability: its targets are chosen now (a TARGET decision unless there
    is one way or none), then its effect happens (900.9, FAQ: targeting)."""
    ability = ability_def(game, source, index)
    targeting = Targeting(
        holder, source, index, ability, controller, number(ability, chosen_x), context
    )
    if needs_targets(ability):
        game.choosing = targeting  # advance offers the targets or takes the only one
    else:
        effects.resolve(game, targeting, ())


def activate_spawn_ability(game: State, choice: ActivateChoice) -> None:
    m = game.minis[choice.mini]
    ability = m.abilities[choice.index]
    game.spawn_points -= choice.x if ability.cost_x else (ability.spawn_cost or 0)
    game.spawn_uses.append((choice.mini, choice.index))
    activate(game, m.id, m.id, choice.index, m.owner, chosen_x=choice.x)


def resolve_next_trigger(game: State) -> bool:
    """Resolve one waiting triggered effect; True if a player must order theirs first.

    900.7a: the effects of the player whose phase it is go first (the first
    player's in shared phases); a player with several chooses their order.
    """
    player = stack.trigger_player(game)
    mine = stack.waiting_triggers(game, player)
    if len(mine) > 1:
        return True
    resolve_trigger(game, stack.pop_trigger(game, mine[0]))
    return False


def resolve_trigger(game: State, trigger: Trigger) -> None:
    activate(game, trigger.mini, trigger.mini, trigger.index, trigger.controller,
             context=trigger.event.mini)  # fmt: skip
