"""The combat procedure's steps 1-4, rolls of attack dice, special attacks, deathblows.

A strike's combat is declared (steps 1-2), its dice rolled with any Fortunate
rerolls (``State.rolling``), blades go to blade abilities (step 3), and damage is
dealt (step 4); then ``resolution`` takes over (steps 5-10: what is disrupted or
destroyed, and the end of combat). A deathblow (step 6) is declared and rolled
here, and its damage dealt as a strike's is. The combat's progress is
``State.combat``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from dbnet.engine import activation, listing, resolution, stack, zones
from dbnet.engine.abilities import (
    ability_def,
    attack_bonus,
    bodyguard_need,
    bodyguards,
    bodyguards_short,
    has_active,
    is_active,
    power,
)
from dbnet.engine.choices import BladeChoice
from dbnet.engine.combat import (
    BLADE_VALUE,
    Combat,
    Purpose,
    Rolling,
    Stage,
    attack_faces,
    dice_damage,
)
from dbnet.engine.effects import deal_damage
from dbnet.engine.enums import Phase, Step, Zone
from dbnet.engine.model import Player
from dbnet.engine.state import sync
from dbnet.engine.waiting import Op, OpKind

if TYPE_CHECKING:
    from dbnet.engine.state import State

# --- rolls of attack dice (FAQ combat step 2) ---------------------------------------


def fortunes(game: State, attackers: Iterable[int]) -> list[tuple[int, int, int]]:
    """The Fortunate abilities of the attacking creatures as (mini, index, X), in order
    (FAQ: each one rerolls separately)."""
    if not game.rules.statics.of("Fortunate"):
        return []
    out = []
    for mini in attackers:
        m = game.minis[mini]
        for index, ability in enumerate(m.abilities):
            if ability.keyword == "Fortunate" and is_active(game, m, ability):
                out.append((mini, index, ability.x or 0))
    return out


def start_roll(
    game: State,
    purpose: Purpose,
    owner: Player,
    count: int,
    attackers: Sequence[int],
    target: int = -1,
) -> None:
    """Roll ``count`` attack dice for ``attackers``; with none, the roll is over at once."""
    if count <= 0:
        finish_roll(game, purpose, owner, [], attackers[0] if attackers else -1, target)
        return
    attacker = attackers[0] if purpose is Purpose.SPECIAL else -1
    game.rolling = Rolling(purpose, owner, count, fortunes(game, attackers), attacker, target)


def rolled(game: State, values: Sequence[int]) -> None:
    """The dice of the roll in progress have come."""
    rolling = game.rolling
    assert rolling is not None
    if rolling.purpose is Purpose.WAIL:
        game.rolling = None
        wail(game, rolling.attacker, values[0] + values[1])
        return
    faces = attack_faces(values)
    if rolling.stage is Stage.ROLL:
        rolling.dice = faces
    else:  # FAQ: a rerolled die takes its new result, whatever it is
        for value in rolling.rerolling:
            rolling.dice.remove(value)
        rolling.dice += faces
        rolling.rerolling = ()
        rolling.fortunes.pop(0)
    next_fortune(game)


def reroll(game: State, dice: tuple[int, ...]) -> None:
    """The next Fortunate rerolls ``dice`` (none: it is passed up)."""
    rolling = game.rolling
    assert rolling is not None
    if not dice:
        rolling.fortunes.pop(0)
        next_fortune(game)
        return
    rolling.stage = Stage.REROLL
    rolling.rerolling = dice
    rolling.count = len(dice)


def next_fortune(game: State) -> None:
    rolling = game.rolling
    assert rolling is not None
    if rolling.fortunes and rolling.dice:
        rolling.stage = Stage.DECIDE
        rolling.count = 0
        return
    game.rolling = None
    finish_roll(
        game, rolling.purpose, rolling.owner, rolling.dice, rolling.attacker, rolling.target
    )


def finish_roll(
    game: State, purpose: Purpose, owner: Player, dice: list[int], attacker: int, target: int
) -> None:
    if purpose is Purpose.ATTACK:
        after_attack_roll(game, dice)
    elif purpose is Purpose.DEATHBLOW:
        combat = game.ongoing_combat()
        begin_damage(game, owner, combat.damage_cell, dice_damage(dice), combat.relentless)
    else:
        assert purpose is Purpose.SPECIAL
        special_damage(game, attacker, target, dice_damage(dice))


# --- special attacks (900.4) ----------------------------------------------------------


def start_special(game: State, attacker: int, power: int, target: int) -> None:
    """A special attack (Ambush, Assault, Charge, Strikeback, Warpstrike): X dice plus
    Darkheart Cottage, rerolled by the attacker's Fortunate, blades missing (900.4)."""
    m = game.minis[attacker]
    if m.cell < 0:
        return  # the attacker has left the dreamscape: no attack
    if (
        game.combat is None
        and game.phase is Phase.ACTION
        and m.owner is game.active
        and stack.strikebacks(game, m.owner.other, m.cell)
    ):
        # Strikeback: an attack in its cell outside a strike (a Charge while shifting)
        # is answered once it has resolved with what it is simultaneous with (900.7b).
        ops = [Op(OpKind.STRIKEBACK, attacker, target, m.cell)]
        below = len(game.stack) - 1 if stack.trigger_frame(game) is not None else len(game.stack)
        game.stack.insert(below, ops)
    elif game.combat is not None and game.combat.cell >= 0 and m.owner is game.active:
        # An attack in another cell during the strike (a Charge after Skirmish): the
        # enemies there may strike back in step 10 too (FAQ: Strikeback).
        combat = game.combat
        combat.defenders += tuple(
            c.id for c in game.creatures_in(m.cell, m.owner.other) if c.id not in combat.defenders
        )
    count = power + attack_bonus(game, m.owner, m.cell)
    start_roll(game, Purpose.SPECIAL, m.owner, count, (attacker,), target)


def special_damage(game: State, attacker: int, target: int, amount: int) -> None:
    """The damage of a special attack goes to its target, unless a Bodyguard stops it
    (FAQ: Bodyguard against Ambush and Warpstrike)."""
    m = game.minis[target]
    if amount <= 0 or m.cell < 0 or not m.is_creature:
        return
    local = [c.id for c in game.minis if c.cell == m.cell and c.owner is m.owner]
    if bodyguards_short(game, local, {target: amount}):
        return
    deal_damage(game, m, amount)
    source = game.minis[attacker]
    if has_active(game, source, "Relentless") is not None:
        game.no_disrupt.append(target)


def wail(game: State, wailer: int, total: int) -> None:
    """Banish each creature in the dreamscape whose printed spawn cost is ``total``
    (FAQ: just the number, not the aspect symbols; it may banish the wailer)."""
    for m in game.minis:
        if m.cell >= 0 and m.is_creature and m.defn.spawn_cost == total:
            zones.place(game, m, Zone.RESERVES)


# --- combat, steps 1-4 -------------------------------------------------------------------


def attack_power(game: State, owner: Player, attackers: Sequence[int], cell: int) -> int:
    """The dice of an attack: the attackers' power plus Darkheart Cottage's bonus."""
    return sum([power(game, game.minis[i]) for i in attackers]) + attack_bonus(game, owner, cell)


def relentless(game: State, attackers: Iterable[int]) -> bool:
    if not game.rules.statics.of("Relentless"):
        return False
    return any(has_active(game, game.minis[i], "Relentless") is not None for i in attackers)


def start_combat(game: State, cell: int, attackers: tuple[int, ...]) -> None:
    """Steps 1-2: the cell and the attackers are declared; the dice are rolled."""
    game.attacked_cells |= 1 << cell
    defenders = game.creature_ids(cell, game.active.other)
    game.combat = Combat(cell, attackers, Step.STRIKE, defenders)
    game.combat.relentless = relentless(game, attackers)
    dice = attack_power(game, game.active, attackers, cell)
    start_roll(game, Purpose.ATTACK, game.active, dice, attackers)


def after_attack_roll(game: State, dice: Sequence[int]) -> None:
    """Step 3: blades then go to blade abilities one at a time."""
    combat = game.ongoing_combat()
    combat.damage_total = dice_damage(dice)
    combat.blades = dice.count(BLADE_VALUE)
    game.step = Step.BLADE  # advance ends it at once when no blade ability can take one


def blade_step(game: State) -> bool:
    """Combat step 3: a blade goes to the only ability that can take it; with none,
    step 4. True when the player must choose."""
    choices = listing.blade_choices(game)
    if len(choices) > 1:
        game._choices = choices
        return True
    if choices:
        blade = choices[0]
        assert isinstance(blade, BladeChoice)
        source = blade.mini if blade.source < 0 else blade.source
        assign_blade(game, blade.mini, source, blade.index)
    else:
        end_blades(game)
    return False


def assign_blade(game: State, holder: int, source: int, index: int) -> None:
    """Step 3: one blade (two for double blade abilities) activates the ability now."""
    combat = game.ongoing_combat()
    ability = ability_def(game, source, index)
    combat.blades -= 2 if ability.is_double_blade else 1
    combat.record_use(holder, source, index)
    activation.activate(game, holder, source, index, game.active)


def end_blades(game: State) -> None:
    """Step 4: damage from the dice and damage modifiers; it can't go below 0 (900.8)."""
    combat = game.ongoing_combat()
    combat.blades = 0  # blades no ability can take are lost (900.10)
    total = combat.damage_total + combat.damage_bonus
    begin_damage(game, game.active, combat.cell, total if total > 0 else 0, combat.relentless)


def begin_damage(game: State, owner: Player, cell: int, total: int, relentless: bool) -> None:
    """Damage to assign: by its owner's DAMAGE decision, unless only one split is legal."""
    combat = game.ongoing_combat()
    combat.damage_owner = owner
    combat.damage_cell = cell
    combat.damage_total = total
    combat.relentless = relentless
    targets = game.creature_ids(cell, owner.other)
    if total <= 0 or not targets:
        assign_damage(game, ())
        return
    if len(targets) == 1:
        assign_damage(game, ((targets[0], total),))
        return
    guards = bodyguards(game, targets)
    if len(guards) == 1 and total <= bodyguard_need(game, guards[0]) - game.minis[guards[0]].damage:
        assign_damage(game, ((guards[0], total),))  # Bodyguard: the only legal split
    else:
        game.step = Step.DAMAGE


def assign_damage(game: State, assignments: Sequence[tuple[int, int]]) -> None:
    """The damage is dealt as assigned; then step 5, or the next deathblow."""
    combat = game.ongoing_combat()
    for mini, amount in assignments:
        game.minis[mini].damage += amount
        sync(game, game.minis[mini])
        if combat.relentless:
            game.no_disrupt.append(mini)
    combat.damage_total = 0
    if combat.in_deathblow:
        resolution.next_deathblow(game)
    else:
        resolution.check_combat(game)


# --- deathblows (combat step 6) ---------------------------------------------------------


def declare_deathblow(game: State, cell: int, attackers: tuple[int, ...]) -> None:
    combat = game.ongoing_combat()
    combat.deathblow_queue.pop(0)
    combat.in_deathblow = True
    combat.damage_cell = cell
    combat.damage_owner = game.first.other
    combat.relentless = relentless(game, attackers)
    owner = game.first.other
    dice = attack_power(game, owner, attackers, cell) if attackers else 0
    start_roll(game, Purpose.DEATHBLOW, owner, dice, attackers)
