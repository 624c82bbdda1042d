"""The stack of work waiting, and the events that put triggered abilities on it.

Triggered effects and the queued parts of effects (moves, special attacks, rolls)
wait on ``State.stack``, innermost last: what an effect triggers resolves before the
rest of that effect (glossary: triggered ability, 900.7). ``emit`` raises an event
(a zone change, a combat's end) and pushes what it triggers; the rest says which
frame is on top, whose waiting effects go next (900.7a), and whether the rest of an
effect waits for a check of damage (900.3). Activating and resolving abilities is
``activation``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbnet.engine.abilities import is_active, triggers
from dbnet.engine.enums import Phase
from dbnet.engine.model import Player
from dbnet.engine.waiting import Event, EventKind, Op, OpKind, Trigger

if TYPE_CHECKING:
    from dbnet.engine.state import State


def strikebacks(game: State, owner: Player, cell: int) -> list[Trigger]:
    """``owner``'s active Strikeback abilities in ``cell``, as triggers."""
    return [
        Trigger(owner, mini, index, Event(EventKind.COMBAT_ENDED, -1, cell))
        for mini, index, ability in game.rules.statics.of("Strikeback")
        if game.minis[mini].owner is owner
        and game.minis[mini].cell == cell
        and is_active(game, game.minis[mini], ability)
    ]


def emit(game: State, kind: EventKind, mini: int = -1, cell: int = -1) -> None:
    """An event happened: what it triggers waits on the stack."""
    if game.rules.statics.by_event[kind]:
        found = triggers(game, kind, mini, cell)
        if found:
            push_triggers(game, found)


def push_triggers(game: State, found: list[Trigger]) -> None:
    """Triggers join the simultaneous ones waiting on top, or wait in a frame of their
    own above the effect that raised them."""
    frame = trigger_frame(game)
    if frame is not None:
        frame.extend(found)
    else:
        game.stack.append(found)


def ops_wait(game: State) -> bool:
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


def trigger_player(game: State) -> Player:
    """Whose waiting effects resolve next (900.7a): the player whose phase it is (the
    first player in shared phases) while they have any, then the other."""
    priority = game.active if game.phase in (Phase.SPAWN, Phase.ACTION) else game.first
    return priority if waiting_triggers(game, priority) else priority.other


def waiting_triggers(game: State, player: Player) -> list[int]:
    """The positions in the top frame of ``player``'s waiting effects."""
    frame = trigger_frame(game)
    assert frame is not None
    return [i for i, t in enumerate(frame) if t.controller is player]


def trigger_frame(game: State) -> list[Trigger] | None:
    """The innermost frame of the stack when it holds triggered effects."""
    if game.stack:
        frame = game.stack[-1]
        if isinstance(frame[0], Trigger):
            return frame
    return None


def pop_trigger(game: State, position: int) -> Trigger:
    frame = trigger_frame(game)
    assert frame is not None
    trigger = frame.pop(position)
    if not frame:
        game.stack.pop()
    return trigger
