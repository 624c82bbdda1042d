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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from dbnet.engine import board, resolution, zones
from dbnet.engine.abilities import bodyguards, bodyguards_short, power
from dbnet.engine.combat import Combat, Fate
from dbnet.engine.enums import Zone
from dbnet.engine.model import Player
from dbnet.engine.state import sync
from dbnet.engine.waiting import Op, OpKind, Targeting

if TYPE_CHECKING:
    from dbnet.engine.state import Mini, State


_Effect = Callable[["State", Targeting, tuple[int, ...]], None]


def resolve(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Carry out ``t``'s ability with the chosen ``targets``."""
    _EFFECTS[t.ability.keyword](game, t, targets)


def has_effect(keyword: str) -> bool:
    return keyword in _EFFECTS


# --- the primitives of effects -------------------------------------------------------


def _push(game: State, ops: list[Op]) -> None:
    """Queue the parts of an effect that must happen one at a time."""
    if ops:
        game.stack.append(ops)


def _sacrifice(game: State, m: Mini) -> None:
    """Glossary: to the graveyard; not destroyed, so no points, no bonus, no deathblow."""
    if m.cell >= 0:
        zones.place(game, m, Zone.GRAVEYARD)


def deal_damage(game: State, m: Mini, amount: int) -> None:
    """Damage from an ability (900.3): checked once the effects waiting resolve (900.7b),
    or in combat step 5 during a combat."""
    if amount > 0 and m.cell >= 0 and m.is_creature:
        m.damage += amount
        sync(game, m)
        game.damaged_outside_combat = game.combat is None


def deal_to_each(game: State, victims: Sequence[Mini], amount: int, by: Player) -> None:
    """``amount`` damage to each of ``victims`` (Bomb): Bodyguards take theirs first, and
    the others only once every Bodyguard has enough."""
    ids = [v.id for v in victims if v.is_creature]
    guards = bodyguards(game, ids)
    for mini in guards:
        deal_damage(game, game.minis[mini], amount)
    others = [i for i in ids if i not in guards]
    if others and not bodyguards_short(game, ids, {others[0]: amount}):
        for mini in others:
            deal_damage(game, game.minis[mini], amount)


def _destroy_by_ability(game: State, m: Mini, by: Player) -> None:
    """Demolish: during a strike, marked now and destroyed in combat step 7 (FAQ)."""
    combat = game.combat
    if combat is not None and combat.cell >= 0:
        combat.marks[m.id] = (Fate.DESTROY, by)
    elif m.cell >= 0:
        zones.destroy(game, m, by)


def _disrupt_by_ability(game: State, m: Mini, by: Player) -> None:
    """Dissipate: marked now and disrupted in combat step 7 by ``by`` (FAQ)."""
    if game.combat is None:
        game.combat = Combat(-1, (), game.step)
        game.combat.marks[m.id] = (Fate.DISRUPT, by)
        resolution.check_combat(game)
    else:
        game.combat.marks[m.id] = (Fate.DISRUPT, by)


# --- "+X damage this combat" (Crit and company) --------------------------------------------


def _bonus(game: State, amount: int) -> None:
    combat = game.combat
    if combat is not None and combat.cell >= 0:  # only inside a strike's combat
        combat.damage_bonus += amount


def _crit(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    _bonus(game, t.number)


def _fumble(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    _bonus(game, -t.number)


def _odds(game: State, t: Targeting) -> tuple[int, int]:
    """The controller's and the opponent's creatures in the combat cell."""
    combat = game.combat
    if combat is None or combat.cell < 0:
        return 0, 0
    counts = game.creatures
    return counts[t.controller][combat.cell], counts[t.controller.other][combat.cell]


def _flanking(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    mine, theirs = _odds(game, t)
    if mine > theirs:
        _bonus(game, t.number)


def _heroics(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    mine, theirs = _odds(game, t)
    if mine < theirs:
        _bonus(game, t.number)


def _pack(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
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


def _stalwart(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    holder = game.minis[t.holder]
    if holder.cell >= 0:
        _bonus(game, game.creatures[t.controller.other][holder.cell])


def _payback(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        _bonus(game, power(game, game.minis[targets[0]]))


# --- attacks and damage ------------------------------------------------------------------


def _attack(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Assault, Warpstrike, Charge, Strikeback: an X-power attack against the target."""
    if targets:
        _push(game, [Op(OpKind.ATTACK, t.holder, targets[0], t.number)])


def _ambush(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """An X-power attack against the enemy whose entering triggered it."""
    _push(game, [Op(OpKind.ATTACK, t.holder, t.context, t.number)])


def _bomb(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Sacrifice it and deal X damage to each local enemy (FAQ: not optional)."""
    holder = game.minis[t.holder]
    if holder.cell < 0:
        return
    cell = holder.cell
    _sacrifice(game, holder)
    victims = [m for m in game.minis if m.cell == cell and m.owner is t.controller.other]
    deal_to_each(game, victims, t.number, t.controller)


def _demolish(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        _destroy_by_ability(game, game.minis[targets[0]], t.controller)


def _dissipate(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    holder = game.minis[t.holder]
    if holder.cell >= 0 and holder.is_creature:
        _disrupt_by_ability(game, holder, by=t.controller.other)


def _ferocity(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    combat = game.combat
    if targets and combat is not None and combat.cell >= 0:
        combat.ferocity.append(targets[0])


# --- movement --------------------------------------------------------------------------


def _moves(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Advance, Skirmish, Expel, Scare, Lure, Teleport: (creature, cell) pairs in order."""
    if t.ability.keyword == "Teleport" and t.ability.modifier == "Self":
        if targets:
            _push(game, [Op(OpKind.MOVE, t.holder, targets[0])])
        return
    pairs = zip(targets[0::2], targets[1::2], strict=True)
    _push(game, [Op(OpKind.MOVE, mini, cell) for mini, cell in pairs])


def _swap(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        _push(game, [Op(OpKind.SWAP, t.holder, targets[0])])


def _pearlthorn(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    castle = game.minis[t.holder]
    if targets and castle.cell >= 0:
        _push(game, [Op(OpKind.MOVE, targets[0], castle.cell)])


def _wail(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    _push(game, [Op(OpKind.WAIL, t.holder)])


# --- zones -------------------------------------------------------------------------------


def _appease(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    if targets:
        _sacrifice(game, game.minis[targets[0]])


def _purge(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Put a miniature of the opponent's reserves into their graveyard (not destroyed)."""

    if targets:
        zones.place(game, game.minis[targets[0]], Zone.GRAVEYARD)


def _raise(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Raise and Reincarnate: a creature from the graveyard back into the reserves."""

    if targets:
        zones.place(game, game.minis[targets[0]], Zone.RESERVES)


def _sacrifice_self(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
    """Bloodthirsty and Detonate at the end of combat."""
    holder = game.minis[t.holder]
    if holder.cell >= 0:
        _sacrifice(game, holder)


def _fade(game: State, t: Targeting, targets: tuple[int, ...]) -> None:

    holder = game.minis[t.holder]
    if holder.cell >= 0:
        zones.place(game, holder, Zone.RESERVES)  # banish


def _lockdown(game: State, t: Targeting, targets: tuple[int, ...]) -> None:
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
