"""The targets an ability may choose when it is activated (900.9, FAQ: targeting).

"All targets for an ability are chosen when the ability is activated": a targeted
ability's activation is followed at once by a TARGET decision whose legal
choices ``options`` lists, each a tuple of miniature ids and cells in the order
``slots`` gives (``(ally, cell, ally, cell)`` for Skirmish 2). A "may" ability
(900.11) also offers ``()``, using the ability without effect. A target that has
become illegal by the time its part of the effect happens is skipped (900.1c).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from dbnet.engine import board
from dbnet.engine.abilities import matches
from dbnet.engine.enums import Zone
from dbnet.engine.keywords import Number, lookup
from dbnet.engine.model import AbilityDef
from dbnet.engine.waiting import Targeting

if TYPE_CHECKING:
    from dbnet.engine.state import Mini, State

CREATURES_PER_PLAYER_PER_CELL: Final = 4  # 301.1a, 900.13


class Slot(enum.Enum):
    MINI = "mini"
    CELL = "cell"


Options = list[tuple[int, ...]]
_Finder = Callable[["State", Targeting], Options]


def needs_targets(ability: AbilityDef) -> bool:
    return ability.keyword in _FINDERS


def slots(ability: AbilityDef, size: int) -> tuple[Slot, ...]:
    """The kind of each position of a target tuple of ``size`` for ``ability``."""
    pattern = _PATTERNS.get(ability.keyword, (Slot.MINI,))
    if ability.keyword == "Teleport" and ability.modifier == "Self":
        pattern = (Slot.CELL,)
    return (pattern * (size // len(pattern) + 1))[:size]


def options(game: State, targeting: Targeting) -> Options:
    """Every legal target tuple, ``()`` first for a "may" ability, in a fixed order."""
    finder = _FINDERS[targeting.ability.keyword]
    found = finder(game, targeting)
    keyword = lookup(targeting.ability.keyword)
    if keyword is not None and keyword.may:
        return [(), *found]
    return found


def number(ability: AbilityDef, chosen_x: int = 0) -> int:
    """The ability's X: printed, chosen with an X spawn cost, or for a "targets" keyword how
    many targets it may take (1 unless printed)."""
    if ability.cost_x:
        return chosen_x
    if ability.x is not None:
        return ability.x
    keyword = lookup(ability.keyword)
    return 1 if keyword is not None and keyword.number is Number.TARGETS else 0


# --- who can be targeted ----------------------------------------------------------------


def _creatures(game: State, targeting: Targeting, *, allies: bool) -> Iterable[Mini]:
    """Creatures in the dreamscape of the controller (allies: not the holder itself) or of
    the opponent, narrowed by the ability's modifier; Self names only the holder."""
    holder = game.minis[targeting.holder]
    modifier = targeting.ability.modifier
    if modifier == "Self":
        if holder.cell >= 0 and holder.is_creature:
            yield holder
        return
    owner = targeting.controller if allies else targeting.controller.other
    for m in game.minis:
        if (
            m.cell >= 0
            and m.owner is owner
            and m.is_creature
            and m is not holder
            and matches(modifier, m.defn)
        ):
            yield m


def _room(game: State, m: Mini, cell: int) -> bool:
    """900.13: a move may not put a fifth creature of a player into a cell."""
    return game.creatures[m.owner][cell] < CREATURES_PER_PLAYER_PER_CELL


def _engaged(game: State, m: Mini) -> bool:
    return game.creatures[m.owner.other][m.cell] > 0


def _moves(
    candidates: Iterable[Mini], destinations: Callable[[Mini], Iterable[int]], n: int
) -> Options:
    """Up to ``n`` distinct creatures (in id order), each with a destination: the
    combinations of the single moves (``itertools.combinations`` order) that move no
    creature twice."""
    singles: Options = [(m.id, cell) for m in candidates for cell in destinations(m)]
    out: Options = list(singles)
    if n < 2:
        return out
    # The singles come grouped by creature: after a move of one creature, the next move
    # of the combination is taken from the first single of the next creature on.
    after = _next_creature(singles)
    for size in range(2, n + 1):
        out += _combined(singles, after, size)
    return out


def _combined(singles: Options, after: list[int], size: int, start: int = 0) -> Options:
    """The combinations of ``size`` singles of distinct creatures from ``singles[start:]``,
    in order, flattened."""
    count = len(singles)
    if size == 1:
        return singles[start:]
    if size == 2:  # the usual case, as one comprehension
        return [
            singles[i] + singles[j] for i in range(start, count) for j in range(after[i], count)
        ]
    return [
        singles[i] + rest
        for i in range(start, count)
        for rest in _combined(singles, after, size - 1, after[i])
    ]


def _next_creature(singles: Options) -> list[int]:
    """For each single, the index of the first single of the next creature."""
    after = [0] * len(singles)
    end = len(singles)
    for i in range(len(singles) - 1, -1, -1):
        if i + 1 < len(singles) and singles[i + 1][0] != singles[i][0]:
            end = i + 1
        after[i] = end
    return after


def _advance(game: State, t: Targeting) -> Options:
    movers = [m for m in _creatures(game, t, allies=True) if not _engaged(game, m)]
    return _moves(movers, lambda m: _adjacent_with_room(game, m), t.number)


def _skirmish(game: State, t: Targeting) -> Options:
    movers = [m for m in _creatures(game, t, allies=True) if _engaged(game, m)]
    return _moves(movers, lambda m: _adjacent_with_room(game, m), t.number)


def _expel(game: State, t: Targeting) -> Options:
    movers = [m for m in _creatures(game, t, allies=False) if _engaged(game, m)]
    return _moves(movers, lambda m: _adjacent_with_room(game, m), t.number)


def _scare(game: State, t: Targeting) -> Options:
    """Push: one cell farther from the holder (glossary: push)."""
    here = game.minis[t.holder].cell
    movers = [m for m in _creatures(game, t, allies=False) if not _engaged(game, m)]

    def farther(m: Mini) -> list[int]:
        now = board.distance(m.cell, here)
        return [c for c in _adjacent_with_room(game, m) if board.distance(c, here) > now]

    return _moves(movers, farther, t.number)


def _lure(game: State, t: Targeting) -> Options:
    """Pull: one cell closer; a local creature can't be pulled (glossary: pull)."""
    here = game.minis[t.holder].cell
    movers = [
        m for m in _creatures(game, t, allies=False) if not _engaged(game, m) and m.cell != here
    ]

    def closer(m: Mini) -> list[int]:
        now = board.distance(m.cell, here)
        return [c for c in _adjacent_with_room(game, m) if board.distance(c, here) < now]

    return _moves(movers, closer, t.number)


def _adjacent_with_room(game: State, m: Mini) -> list[int]:
    return [cell for cell in board.ADJACENT[m.cell] if _room(game, m, cell)]


def _teleport(game: State, t: Targeting) -> Options:
    """Any creature (Self: the holder) into any nonportal cell with room for it."""
    holder = game.minis[t.holder]
    if t.ability.modifier == "Self":
        if holder.cell < 0:
            return []
        return [(cell,) for cell in _teleport_cells(game, holder)]
    out: Options = []
    for m in game.minis:
        if m.cell < 0 or not m.is_creature or not matches(t.ability.modifier, m.defn):
            continue
        if t.ability.modifier == "Enemies" and m.owner is t.controller:
            continue
        out += [(m.id, cell) for cell in _teleport_cells(game, m)]
    return out


def _teleport_cells(game: State, m: Mini) -> list[int]:
    return [
        cell
        for cell in range(board.CELL_COUNT)
        if cell != m.cell and cell not in board.PORTAL and _room(game, m, cell)
    ]


def _swap(game: State, t: Targeting) -> Options:
    """A nonlocal ally to trade places with; only a creature swaps (locations never move)."""
    holder = game.minis[t.holder]
    if holder.cell < 0 or not holder.is_creature:
        return []
    return [(m.id,) for m in _creatures(game, t, allies=True) if m.cell != holder.cell]


def _local_enemy(game: State, t: Targeting) -> Options:
    holder = game.minis[t.holder]
    return [(m.id,) for m in _creatures(game, t, allies=False) if m.cell == holder.cell]


def _nonlocal_enemy(game: State, t: Targeting) -> Options:
    holder = game.minis[t.holder]
    return [(m.id,) for m in _creatures(game, t, allies=False) if m.cell != holder.cell]


def _demolish(game: State, t: Targeting) -> Options:
    """Any location local or adjacent, the controller's own included (FAQ: Demolish)."""
    holder = game.minis[t.holder]
    if holder.cell < 0:
        return []
    reach = (holder.cell, *board.ADJACENT[holder.cell])
    return [(m.id,) for m in game.minis if m.defn.is_location and m.cell in reach]


def _purge(game: State, t: Targeting) -> Options:

    return [
        (m.id,) for m in game.minis if m.owner is t.controller.other and m.zone is Zone.RESERVES
    ]


def _raise(game: State, t: Targeting) -> Options:

    return [
        (m.id,)
        for m in game.minis
        if m.owner is t.controller
        and m.zone is Zone.GRAVEYARD
        and m.is_creature
        and m.id != t.holder  # Reincarnate: "a different creature"; Raise never raises itself
    ]


def _appease(game: State, t: Targeting) -> Options:
    """Any creature its controller controls, itself included (FAQ: Appease)."""
    return [
        (m.id,) for m in game.minis if m.owner is t.controller and m.cell >= 0 and m.is_creature
    ]


def _lockdown(game: State, t: Targeting) -> Options:
    return [(cell,) for cell in range(board.CELL_COUNT)]


def _pearlthorn(game: State, t: Targeting) -> Options:
    """An ally in an adjacent cell, moved into the castle's cell (if there is room)."""
    castle = game.minis[t.holder]
    if castle.cell < 0:
        return []
    return [
        (m.id,)
        for m in _creatures(game, t, allies=True)
        if m.cell in board.ADJACENT[castle.cell] and _room(game, m, castle.cell)
    ]


_FINDERS: Final[dict[str, _Finder]] = {
    "Advance": _advance,
    "Skirmish": _skirmish,
    "Expel": _expel,
    "Scare": _scare,
    "Lure": _lure,
    "Teleport": _teleport,
    "Swap": _swap,
    "Assault": _local_enemy,
    "Payback": _local_enemy,
    "Ferocity": _local_enemy,
    "Charge": _local_enemy,
    "Strikeback": _local_enemy,
    "Warpstrike": _nonlocal_enemy,
    "Demolish": _demolish,
    "Purge": _purge,
    "Raise": _raise,
    "Reincarnate": _raise,
    "Appease": _appease,
    "Lockdown": _lockdown,
    "Pearlthorn Castle": _pearlthorn,
}

_PATTERNS: Final[dict[str, tuple[Slot, ...]]] = {
    "Advance": (Slot.MINI, Slot.CELL),
    "Skirmish": (Slot.MINI, Slot.CELL),
    "Expel": (Slot.MINI, Slot.CELL),
    "Scare": (Slot.MINI, Slot.CELL),
    "Lure": (Slot.MINI, Slot.CELL),
    "Teleport": (Slot.MINI, Slot.CELL),
    "Lockdown": (Slot.CELL,),
}
