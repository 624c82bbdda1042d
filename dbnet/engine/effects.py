"""What an activated or triggered ability does once its targets are chosen.

``resolve`` runs the keyword's effect. Immediate changes (damage bonuses, marks,
sacrifices, zone changes) happen here; what needs the game to wait or can
trigger other abilities (a move, a special attack, a roll) is queued as ``Op``s
that the game runs one at a time, resolving what each triggers before the next
(glossary: triggered ability; FAQ: each miniature moves individually).

In a strike combat, damage is held until combat step 5 and destruction by an
ability (Demolish, Dissipate) until step 7 (FAQ combat steps 3 and 7); outside
combat, damage is checked once the effects waiting have resolved (900.3).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NamedTuple

from dbnet.engine import board
from dbnet.engine.enums import Zone
from dbnet.engine.model import Player
from dbnet.engine.targets import Targeting

if TYPE_CHECKING:
    from dbnet.engine.game import Game


class OpKind(enum.IntEnum):
    MOVE = 0  # move ``mini`` to cell ``arg`` (if it still can)
    SWAP = 1  # exchange the cells of ``mini`` and ``arg``
    ATTACK = 2  # ``mini`` makes an ``extra``-power special attack against ``arg``
    WAIL = 3  # ``mini``'s Wail: roll two initiative dice, banish that spawn cost
    STRIKEBACK = 4  # ``mini`` attacked ``arg`` in cell ``extra`` outside a strike: Strikeback


class Op(NamedTuple):
    kind: OpKind
    mini: int
    arg: int = -1
    extra: int = 0


_Effect = Callable[["Game", Targeting, tuple[int, ...]], None]


def resolve(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Carry out ``t``'s ability with the chosen ``targets``."""
    _EFFECTS[t.ability.keyword](game, t, targets)


def has_effect(keyword: str) -> bool:
    return keyword in _EFFECTS


# --- "+X damage this combat" (Crit and company) --------------------------------------------


def _bonus(game: Game, amount: int) -> None:
    combat = game.combat
    if combat is not None and combat.cell >= 0:  # only inside a strike's combat
        combat.damage_bonus += amount


def _crit(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    _bonus(game, t.number)


def _fumble(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    _bonus(game, -t.number)


def _odds(game: Game, t: Targeting) -> tuple[int, int]:
    """The controller's and the opponent's creatures in the combat cell."""
    combat = game.combat
    if combat is None or combat.cell < 0:
        return 0, 0
    counts = game.creatures
    return counts[t.controller][combat.cell], counts[t.controller.other][combat.cell]


def _flanking(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    mine, theirs = _odds(game, t)
    if mine > theirs:
        _bonus(game, t.number)


def _heroics(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    mine, theirs = _odds(game, t)
    if mine < theirs:
        _bonus(game, t.number)


def _pack(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    holder = game.minis[t.holder]
    if holder.cell < 0:
        return
    reach = (holder.cell, *board.ADJACENT[holder.cell])
    allies = sum(
        1
        for m in game.minis
        if m.owner is t.controller and m is not holder and m.is_creature and m.cell in reach
    )
    _bonus(game, allies)


def _stalwart(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    holder = game.minis[t.holder]
    if holder.cell >= 0:
        _bonus(game, game.creatures[t.controller.other][holder.cell])


def _payback(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        _bonus(game, game.power(game.minis[targets[0]]))


# --- attacks and damage ------------------------------------------------------------------


def _attack(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Assault, Warpstrike, Charge, Strikeback: an X-power attack against the target."""
    if targets:
        game.push_ops([Op(OpKind.ATTACK, t.holder, targets[0], t.number)])


def _ambush(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """An X-power attack against the enemy whose entering triggered it."""
    game.push_ops([Op(OpKind.ATTACK, t.holder, t.context, t.number)])


def _bomb(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Sacrifice it and deal X damage to each local enemy (FAQ: not optional)."""
    holder = game.minis[t.holder]
    if holder.cell < 0:
        return
    cell = holder.cell
    game.sacrifice(holder)
    victims = [m for m in game.minis if m.cell == cell and m.owner is t.controller.other]
    game.deal_to_each(victims, t.number, t.controller)


def _demolish(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        game.destroy_by_ability(game.minis[targets[0]], t.controller)


def _dissipate(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    holder = game.minis[t.holder]
    if holder.cell >= 0 and holder.is_creature:
        game.disrupt_by_ability(holder, by=t.controller.other)


def _ferocity(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    combat = game.combat
    if targets and combat is not None and combat.cell >= 0:
        combat.ferocity.append(targets[0])


# --- movement --------------------------------------------------------------------------


def _moves(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Advance, Skirmish, Expel, Scare, Lure, Teleport: (creature, cell) pairs in order."""
    if t.ability.keyword == "Teleport" and t.ability.modifier == "Self":
        if targets:
            game.push_ops([Op(OpKind.MOVE, t.holder, targets[0])])
        return
    pairs = zip(targets[0::2], targets[1::2], strict=True)
    game.push_ops([Op(OpKind.MOVE, mini, cell) for mini, cell in pairs])


def _swap(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        game.push_ops([Op(OpKind.SWAP, t.holder, targets[0])])


def _pearlthorn(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    castle = game.minis[t.holder]
    if targets and castle.cell >= 0:
        game.push_ops([Op(OpKind.MOVE, targets[0], castle.cell)])


def _wail(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    game.push_ops([Op(OpKind.WAIL, t.holder)])


# --- zones -------------------------------------------------------------------------------


def _appease(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        game.sacrifice(game.minis[targets[0]])


def _purge(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Put a miniature of the opponent's reserves into their graveyard (not destroyed)."""

    if targets:
        game.send(game.minis[targets[0]], Zone.GRAVEYARD)


def _raise(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Raise and Reincarnate: a creature from the graveyard back into the reserves."""

    if targets:
        game.send(game.minis[targets[0]], Zone.RESERVES)


def _sacrifice_self(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    """Bloodthirsty and Detonate at the end of combat."""
    holder = game.minis[t.holder]
    if holder.cell >= 0:
        game.sacrifice(holder)


def _fade(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:

    holder = game.minis[t.holder]
    if holder.cell >= 0:
        game.send(holder, Zone.RESERVES)  # banish


def _lockdown(game: Game, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        game.locked_cells |= 1 << targets[0]


_EFFECTS: Final[dict[str, _Effect]] = {
    "Crit": _crit,
    "Fumble": _fumble,
    "Flanking": _flanking,
    "Heroics": _heroics,
    "Pack": _pack,
    "Stalwart": _stalwart,
    "Payback": _payback,
    "Assault": _attack,
    "Warpstrike": _attack,
    "Charge": _attack,
    "Strikeback": _attack,
    "Ambush": _ambush,
    "Bomb": _bomb,
    "Demolish": _demolish,
    "Dissipate": _dissipate,
    "Ferocity": _ferocity,
    "Advance": _moves,
    "Skirmish": _moves,
    "Expel": _moves,
    "Scare": _moves,
    "Lure": _moves,
    "Teleport": _moves,
    "Swap": _swap,
    "Pearlthorn Castle": _pearlthorn,
    "Wail": _wail,
    "Appease": _appease,
    "Purge": _purge,
    "Raise": _raise,
    "Reincarnate": _raise,
    "Bloodthirsty": _sacrifice_self,
    "Detonate": _sacrifice_self,
    "Fade": _fade,
    "Lockdown": _lockdown,
}

__all__ = ["Op", "OpKind", "Player", "has_effect", "resolve"]
