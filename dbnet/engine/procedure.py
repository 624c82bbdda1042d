"""The combat procedure (the FAQ's ten steps), rolls of attack dice, special attacks.

A strike's combat is declared (steps 1-2), its dice rolled with any Fortunate
rerolls (``State.rolling``), blades go to blade abilities (step 3), damage is
dealt (step 4), and steps 5-9 decide and carry out what is disrupted or
destroyed, deathblows included; step 10's end-of-combat abilities come last.
Damage that abilities deal outside combat is checked by steps 5-9 alone
(900.3), as a combat in cell -1. The combat's progress is ``State.combat``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from dbnet.engine import legality, stack, zones
from dbnet.engine.abilities import EventKind, has_active, is_active, triggers
from dbnet.engine.choices import BladeChoice, BuryChoice, PlaceChoice
from dbnet.engine.combat import (
    BLADE_VALUE,
    Combat,
    Fate,
    Purpose,
    Rolling,
    Stage,
    attack_faces,
    dice_damage,
)
from dbnet.engine.effects import Op, OpKind
from dbnet.engine.enums import Phase, Step, Zone
from dbnet.engine.model import PLAYERS, Player
from dbnet.engine.state import sync

if TYPE_CHECKING:
    from dbnet.engine.game import Game

# --- rolls of attack dice (FAQ combat step 2) ---------------------------------------


def fortunes(game: Game, attackers: Iterable[int]) -> list[tuple[int, int, int]]:
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
    game: Game,
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


def rolled(game: Game, values: Sequence[int]) -> None:
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


def reroll(game: Game, dice: tuple[int, ...]) -> None:
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


def next_fortune(game: Game) -> None:
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
    game: Game, purpose: Purpose, owner: Player, dice: list[int], attacker: int, target: int
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


def start_special(game: Game, attacker: int, power: int, target: int) -> None:
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
    count = power + game.attack_bonus(m.owner, m.cell)
    start_roll(game, Purpose.SPECIAL, m.owner, count, (attacker,), target)


def special_damage(game: Game, attacker: int, target: int, amount: int) -> None:
    """The damage of a special attack goes to its target, unless a Bodyguard stops it
    (FAQ: Bodyguard against Ambush and Warpstrike)."""
    m = game.minis[target]
    if amount <= 0 or m.cell < 0 or not m.is_creature:
        return
    local = [c.id for c in game.minis if c.cell == m.cell and c.owner is m.owner]
    if legality.bodyguards_short(game, local, {target: amount}):
        return
    game.deal_damage(m, amount)
    source = game.minis[attacker]
    if has_active(game, source, "Relentless") is not None:
        game.no_disrupt.append(target)


def wail(game: Game, wailer: int, total: int) -> None:
    """Banish each creature in the dreamscape whose printed spawn cost is ``total``
    (FAQ: just the number, not the aspect symbols; it may banish the wailer)."""
    for m in game.minis:
        if m.cell >= 0 and m.is_creature and m.defn.spawn_cost == total:
            game.send(m, Zone.RESERVES)


# --- combat, steps 1-4 -------------------------------------------------------------------


def attack_power(game: Game, owner: Player, attackers: Sequence[int], cell: int) -> int:
    """The dice of an attack: the attackers' power plus Darkheart Cottage's bonus."""
    return sum([game.power(game.minis[i]) for i in attackers]) + game.attack_bonus(owner, cell)


def relentless(game: Game, attackers: Iterable[int]) -> bool:
    if not game.rules.statics.of("Relentless"):
        return False
    return any(has_active(game, game.minis[i], "Relentless") is not None for i in attackers)


def start_combat(game: Game, cell: int, attackers: tuple[int, ...]) -> None:
    """Steps 1-2: the cell and the attackers are declared; the dice are rolled."""
    game.attacked_cells |= 1 << cell
    defenders = game.creature_ids(cell, game.active.other)
    game.combat = Combat(cell, attackers, Step.STRIKE, defenders)
    game.combat.relentless = relentless(game, attackers)
    dice = attack_power(game, game.active, attackers, cell)
    start_roll(game, Purpose.ATTACK, game.active, dice, attackers)


def after_attack_roll(game: Game, dice: Sequence[int]) -> None:
    """Step 3: blades then go to blade abilities one at a time."""
    combat = game.ongoing_combat()
    combat.damage_total = dice_damage(dice)
    combat.blades = dice.count(BLADE_VALUE)
    game.step = Step.BLADE  # advance ends it at once when no blade ability can take one


def blade_step(game: Game) -> bool:
    """Combat step 3: a blade goes to the only ability that can take it; with none,
    step 4. True when the player must choose."""
    choices = legality.blade_choices(game)
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


def assign_blade(game: Game, holder: int, source: int, index: int) -> None:
    """Step 3: one blade (two for double blade abilities) activates the ability now."""
    combat = game.ongoing_combat()
    ability = game.ability_def(source, index)
    combat.blades -= 2 if ability.is_double_blade else 1
    combat.record_use(holder, source, index)
    stack.activate(game, holder, source, index, game.active)


def end_blades(game: Game) -> None:
    """Step 4: damage from the dice and damage modifiers; it can't go below 0 (900.8)."""
    combat = game.ongoing_combat()
    combat.blades = 0  # blades no ability can take are lost (900.10)
    total = combat.damage_total + combat.damage_bonus
    begin_damage(game, game.active, combat.cell, total if total > 0 else 0, combat.relentless)


def begin_damage(game: Game, owner: Player, cell: int, total: int, relentless: bool) -> None:
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
    guards = game.bodyguards(targets)
    if len(guards) == 1 and total <= game.bodyguard_need(guards[0]) - game.minis[guards[0]].damage:
        assign_damage(game, ((guards[0], total),))  # Bodyguard: the only legal split
    else:
        game.step = Step.DAMAGE


def assign_damage(game: Game, assignments: Sequence[tuple[int, int]]) -> None:
    """The damage is dealt as assigned; then step 5, or the next deathblow."""
    combat = game.ongoing_combat()
    for mini, amount in assignments:
        game.minis[mini].damage += amount
        sync(game, game.minis[mini])
        if combat.relentless:
            game.no_disrupt.append(mini)
    combat.damage_total = 0
    if combat.in_deathblow:
        next_deathblow(game)
    else:
        check_combat(game)


# --- combat, steps 5-10 ------------------------------------------------------------------


def check_combat(game: Game) -> None:
    """Step 5: which creatures will be disrupted or destroyed."""
    combat = game.ongoing_combat()
    game.damaged_outside_combat = False
    damaged = [m for m in game.minis if m.damage > 0]
    for m in damaged:
        if m.cell < 0 or m.id in combat.marks or m.id in combat.fate_queue:
            continue
        defense, life = game.defense(m), game.life(m)
        by = m.owner.other
        unstoppable = m.id in game.no_disrupt or m.id in combat.ferocity
        if m.damage >= life:
            if m.damage >= defense and not unstoppable:
                combat.fate_queue.append(m.id)  # 802.2d: the damaging player chooses
            else:
                combat.marks[m.id] = (Fate.DESTROY, by)
        elif m.damage >= defense:
            if m.id in game.no_disrupt:
                continue  # Relentless: it can't be disrupted
            fate = Fate.DESTROY if m.id in combat.ferocity else Fate.DISRUPT
            combat.marks[m.id] = (fate, by)
    after_fates(game)


def after_fates(game: Game) -> None:
    combat = game.ongoing_combat()
    if combat.fate_queue:
        game.step = Step.FATE
        return
    if not combat.marks:
        end_combat(game)  # step 10
        return
    # Step 6: deathblows, only in the first player's action phases (802.2g).
    if game.active is game.first and game.phase is Phase.ACTION:
        cells = []
        for mini, (fate, _) in sorted(combat.marks.items()):
            m = game.minis[mini]
            if (
                fate is Fate.DESTROY
                and m.owner is not game.first
                and m.is_creature
                and mini not in combat.deathblown
                and has_active(game, m, "Regenerate") is None  # banished, not destroyed
            ):
                combat.deathblown.append(mini)
                if m.cell not in cells and game.creatures[game.first][m.cell]:
                    cells.append(m.cell)
        combat.deathblow_queue.extend(sorted(cells))
    next_deathblow(game)


def next_deathblow(game: Game) -> None:
    combat = game.ongoing_combat()
    combat.in_deathblow = False
    if combat.deathblow_queue:
        game.step = Step.DEATHBLOW
    else:
        begin_resolve(game)


def declare_deathblow(game: Game, cell: int, attackers: tuple[int, ...]) -> None:
    combat = game.ongoing_combat()
    combat.deathblow_queue.pop(0)
    combat.in_deathblow = True
    combat.damage_cell = cell
    combat.damage_owner = game.first.other
    combat.relentless = relentless(game, attackers)
    owner = game.first.other
    dice = attack_power(game, owner, attackers, cell) if attackers else 0
    start_roll(game, Purpose.DEATHBLOW, owner, dice, attackers)


def begin_resolve(game: Game) -> None:
    """Step 7: the active player deals with the opponent's creatures first."""
    combat = game.ongoing_combat()
    combat.resolver = game.active
    game.step = Step.RESOLVE


def resolve_step(game: Game) -> bool:
    """Step 7, one miniature at a time; True when the resolving player must choose.

    Burying first only adds empty cells for the disrupted, so miniatures marked
    for destruction go first, in id order unless one of them has Reincarnate
    (then the order decides what it can bring back, and the player chooses) or a
    burial could decide whether a disrupted enemy finds an empty cell.
    """
    combat = game.ongoing_combat()
    resolver = PLAYERS[combat.resolver]
    destroys = legality.destroys_for(game, resolver)
    if destroys and legality.bury_order_matters(game, resolver, destroys):
        game._choices = legality.resolve_choices(game)
        return True
    if len(destroys) > 1 and any(
        any(a.keyword == "Reincarnate" for a in game.minis[d].abilities) for d in destroys
    ):
        game._choices = [BuryChoice(d) for d in destroys]
        return True
    if destroys:
        apply_resolution(game, BuryChoice(destroys[0]))
        return False
    # What is left is disrupt_choices(), counted first: with many disrupted creatures
    # or empty cells, the resolver chooses (legal_choices() lists them if asked).
    disrupted = legality.marked(game, Fate.DISRUPT, resolver)
    if disrupted:
        empties = legality.empty_cells_for(game, resolver)
        if len(disrupted) > 1 or len(empties) > 1:
            return True
        mini = disrupted[0]
        apply_resolution(game, PlaceChoice(mini, empties[0]) if empties else BuryChoice(mini))
        return False
    if resolver is game.active:
        combat.resolver = resolver.other
    else:
        combat.resolver = -1
        check_combat(game)  # step 9: back to step 5
    return False


def apply_resolution(game: Game, choice: BuryChoice | PlaceChoice) -> None:
    combat = game.ongoing_combat()
    _, by = combat.marks.pop(choice.mini)
    m = game.minis[choice.mini]
    if m.cell < 0:
        return  # it left the dreamscape before its turn came (a sacrifice, a banishment)
    if isinstance(choice, BuryChoice):
        zones.destroy(game, m, by=by)
    else:
        zones.disrupt(game, m, choice.cell)


def start_damage_check(game: Game) -> None:
    """900.3: ability damage outside combat is checked like combat steps 5-9."""
    game.combat = Combat(-1, (), game.step)
    check_combat(game)


def end_combat(game: Game) -> None:
    """Step 10: end-of-combat effects, each once per combat; then the game goes on."""
    combat = game.ongoing_combat()
    if combat.cell >= 0 and game.rules.statics.triggered:
        found = triggers(game, EventKind.COMBAT_ENDED, -1, combat.cell)
        if found:
            combat.ended += ((t.mini, t.index) for t in found)
            stack.push_triggers(game, found)
            game.step = Step.COMBAT_END
            return
    game.combat = None
    game.step = combat.resume


def combat_end_step(game: Game) -> bool:
    check_combat(game)  # step 10's effects resolved: back to step 5
    return False
