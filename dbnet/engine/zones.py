"""Miniatures changing zone or cell: spawning, moving, destroying, disrupting.

``place`` is the one writer of a miniature's zone and cell, and keeps the counts
the rest of the engine reads (creatures per cell, the locations, the cell
bitmasks, the aspect counts) and the hashed mirror (``state.sync``) in step.
What such a change can trigger is raised here too (``stack.emit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from dbnet.engine.abilities import has_active
from dbnet.engine.costs import spawn_cost
from dbnet.engine.enums import Zone
from dbnet.engine.model import Player
from dbnet.engine.stack import emit
from dbnet.engine.state import Mini, sync
from dbnet.engine.waiting import EventKind

if TYPE_CHECKING:
    from dbnet.engine.state import State

_ASPECT_ZONES: Final = frozenset({Zone.DREAMSCAPE, Zone.GRAVEYARD})
"""Where a player's miniatures count towards aspect costs (801.4)."""


def place(game: State, m: Mini, zone: Zone, cell: int = -1) -> None:
    """The one place where a miniature changes zone or cell (keeps the counts right)."""
    counted = zone in _ASPECT_ZONES
    if counted != (m.zone in _ASPECT_ZONES):
        counts = game.aspect_counts[m.owner]
        for aspect, _ in m.needs:  # each of its aspects, once
            counts[aspect] += 1 if counted else -1
    if m.cell >= 0:
        if m.is_creature:
            counts = game.creatures[m.owner]
            counts[m.cell] -= 1
            if not counts[m.cell]:
                game.creature_cells[m.owner] &= ~(1 << m.cell)
        else:
            game.location_at[m.cell] = -1
            game.location_cells &= ~(1 << m.cell)
    m.zone = zone
    m.cell = cell
    if cell >= 0:
        if m.is_creature:
            game.creatures[m.owner][cell] += 1
            game.creature_cells[m.owner] |= 1 << cell
        else:
            game.location_at[cell] = m.id
            game.location_cells |= 1 << cell
    else:
        m.damage = 0
    sync(game, m)


def spawn(game: State, m: Mini, cell: int) -> None:
    game.spawn_points -= spawn_cost(game, m, game.aspect_counts[m.owner])
    place(game, m, Zone.DREAMSCAPE, cell)
    if m.is_creature:
        game.spawned_into[cell] += 1  # 801.5 counts creatures; a location comes on top
    emit(game, EventKind.SPAWNED, m.id, cell)


def move(game: State, m: Mini, cell: int) -> None:
    place(game, m, Zone.DREAMSCAPE, cell)
    emit(game, EventKind.ENTERED, m.id, cell)


def destroy(game: State, m: Mini, by: Player) -> None:
    """Put ``m`` into its owner's graveyard; ``by`` scores if it is an enemy (803.2, 300.6).

    Regenerate banishes it instead (no points, no bonus); Vessel changes the bonus.
    """
    cell = m.cell
    if m.is_creature and has_active(game, m, "Regenerate") is not None:
        place(game, m, Zone.RESERVES)
        return
    vessel = has_active(game, m, "Vessel")
    place(game, m, Zone.GRAVEYARD)
    game.bonus[m.owner] += (vessel.x or 0) if vessel is not None else 2
    if by is not m.owner:
        game.kills[by] += 1
    combat = game.combat
    if combat is not None:
        combat.destroyed.append(m.id)
        if m.is_creature:
            combat.removed.append(m.id)
    emit(game, EventKind.DESTROYED, m.id, cell)


def disrupt(game: State, m: Mini, cell: int) -> None:
    m.damage = 0  # 802.2f, combat step 8 (written with its new cell)
    place(game, m, Zone.DREAMSCAPE, cell)
    if game.combat is not None:
        game.combat.removed.append(m.id)
    emit(game, EventKind.DISRUPTED, m.id, cell)
    emit(game, EventKind.ENTERED, m.id, cell)
