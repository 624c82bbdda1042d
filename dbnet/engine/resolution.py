"""The combat procedure's steps 5-10: what is disrupted or destroyed, and the end.

Step 5 decides which damaged creatures will be disrupted or destroyed (the damaging
player chooses where both apply, a FATE decision), step 6 offers the first player's
deathblows (declared and rolled in ``procedure``), step 7 carries the marks out one
miniature at a time (the resolver places or buries), step 9 goes back to step 5, and
step 10's end-of-combat abilities come last. Damage that abilities deal outside
combat is checked by steps 5-9 alone (900.3), as a combat in cell -1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbnet.engine import abilities, listing, stack, zones
from dbnet.engine.abilities import has_active, triggers
from dbnet.engine.choices import BuryChoice, PlaceChoice
from dbnet.engine.combat import Combat, Fate
from dbnet.engine.enums import Phase, Step
from dbnet.engine.model import PLAYERS
from dbnet.engine.waiting import EventKind

if TYPE_CHECKING:
    from dbnet.engine.state import State


def check_combat(game: State) -> None:
    """Step 5: which creatures will be disrupted or destroyed."""
    combat = game.ongoing_combat()
    game.damaged_outside_combat = False
    damaged = [m for m in game.minis if m.damage > 0]
    for m in damaged:
        if m.cell < 0 or m.id in combat.marks or m.id in combat.fate_queue:
            continue
        defense, life = abilities.defense(game, m), abilities.life(game, m)
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


def after_fates(game: State) -> None:
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


def next_deathblow(game: State) -> None:
    combat = game.ongoing_combat()
    combat.in_deathblow = False
    if combat.deathblow_queue:
        game.step = Step.DEATHBLOW
    else:
        begin_resolve(game)


def begin_resolve(game: State) -> None:
    """Step 7: the active player deals with the opponent's creatures first."""
    combat = game.ongoing_combat()
    combat.resolver = game.active
    game.step = Step.RESOLVE


def resolve_step(game: State) -> bool:
    """Step 7, one miniature at a time; True when the resolving player must choose.

    Burying first only adds empty cells for the disrupted, so miniatures marked
    for destruction go first, in id order unless one of them has Reincarnate
    (then the order decides what it can bring back, and the player chooses) or a
    burial could decide whether a disrupted enemy finds an empty cell.
    """
    combat = game.ongoing_combat()
    resolver = PLAYERS[combat.resolver]
    destroys = listing.destroys_for(game, resolver)
    if destroys and listing.bury_order_matters(game, resolver, destroys):
        game._choices = listing.resolve_choices(game)
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
    disrupted = listing.marked(game, Fate.DISRUPT, resolver)
    if disrupted:
        empties = listing.empty_cells_for(game, resolver)
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


def apply_resolution(game: State, choice: BuryChoice | PlaceChoice) -> None:
    combat = game.ongoing_combat()
    _, by = combat.marks.pop(choice.mini)
    m = game.minis[choice.mini]
    if m.cell < 0:
        return  # it left the dreamscape before its turn came (a sacrifice, a banishment)
    if isinstance(choice, BuryChoice):
        zones.destroy(game, m, by=by)
    else:
        zones.disrupt(game, m, choice.cell)


def start_damage_check(game: State) -> None:
    """900.3: ability damage outside combat is checked like combat steps 5-9."""
    game.combat = Combat(-1, (), game.step)
    check_combat(game)


def end_combat(game: State) -> None:
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


def combat_end_step(game: State) -> bool:
    check_combat(game)  # step 10's effects resolved: back to step 5
    return False
