"""Always-on abilities: stats, blade abilities in reach, and what an event triggers.

The engine asks this module every question whose answer an ability can change:
a stat after modifiers (900.8 minimums applied after all of them), which blade
abilities a miniature has now (its own, Copy's and Hell's Fury's, none under
Nullify), whether a rule-changing keyword is in effect for a miniature, and
which abilities a game event triggers (900.7), and the questions about a position
that abilities answer: the points a player claims (Dominate), an attack's bonus
(Darkheart Cottage), what Bodyguards need, which end-of-combat abilities are due.
Each takes the state (``State``: the rules it was set up with, and where the game
is now); ``Game`` offers the public ones as its methods. ``Statics`` (in
``statics``) indexes a game's abilities once, at setup, so that a game whose
miniatures have no ability pays almost nothing for these questions.

An ability is *active* (glossary) while its miniature is in the dreamscape and,
for a "score" ability (303.2b, 900.12), on one of its controller's scoring cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from dbnet.engine import board
from dbnet.engine.enums import Phase, Zone
from dbnet.engine.keywords import ASPECT_WORDS
from dbnet.engine.model import AbilityDef, Activation, MiniatureDef, Player
from dbnet.engine.statics import Stat, apply_minimum
from dbnet.engine.waiting import Event, EventKind, Trigger

if TYPE_CHECKING:
    from dbnet.engine.state import Mini, State

HELLS_FURY_CRIT: Final = AbilityDef(
    "Crit", Activation.BLADE, x=2, text="Deal +2 damage this combat (granted by Hell's Fury)."
)


def matches(modifier: str | None, defn: MiniatureDef) -> bool:
    """Whether a miniature is of the aspect or lineage a modifier names (900.14); Self and
    Enemies are checked by the caller, and no modifier matches everything."""
    if modifier is None or modifier in ("Self", "Enemies"):
        return True
    aspect = ASPECT_WORDS.get(modifier)
    if aspect is not None:
        return aspect in defn.aspects
    return defn.lineage == modifier


def near(a: int, b: int) -> bool:
    """Local or adjacent (Bolster, Enrage, Invigorate, Hell's Fury)."""
    return a == b or b in board.ADJACENT[a]


def is_active(game: State, m: Mini, ability: AbilityDef) -> bool:
    """In the dreamscape and, for a score ability, on a scoring cell of its controller."""
    if m.cell < 0:
        return False
    return not ability.score or m.cell in board.SCORING_CELLS[m.owner]


_NO_HOLDERS: Final[frozenset[int]] = frozenset()


def has_active(game: State, m: Mini, keyword: str) -> AbilityDef | None:
    """``m``'s first active ability ``keyword`` (a rule-changing static), or None."""
    if m.cell < 0 or m.id not in game.rules.statics.holders.get(keyword, _NO_HOLDERS):
        return None
    for ability in m.abilities:
        if ability.keyword == keyword and is_active(game, m, ability):
            return ability
    return None


def stat_modifier(game: State, m: Mini, stat: Stat) -> int:
    """The sum of every modifier to ``stat`` of ``m`` now (may be negative)."""
    if stat is Stat.COST:
        return cost_modifier(game, m)
    if m.cell < 0 or not m.is_creature:
        return 0
    statics = game.rules.statics
    total = 0
    for source_id, ability, whose, sign in statics.auras[stat]:
        source = game.minis[source_id]
        if source.cell < 0:
            continue  # not in the dreamscape: not active
        if ability.modifier == "Self":
            reaches = source is m
        elif whose == "ally":
            reaches = source is not m and source.owner is m.owner and near(m.cell, source.cell)
        else:
            reaches = source.owner is not m.owner and source.cell == m.cell
        if reaches and is_active(game, source, ability) and matches(ability.modifier, m.defn):
            total += sign * (ability.x or 0)
    for ability in statics.self_stats.get(m.id, ()):
        if not is_active(game, m, ability):
            continue
        keyword = ability.keyword
        if keyword == "Geomancy":
            column = board.column(m.cell)
            locations = sum(
                1
                for other in game.minis
                if other.owner is m.owner
                and other.cell >= 0
                and other.defn.is_location
                and board.column(other.cell) == column
            )
            total += (ability.x or 0) * locations
        elif (
            keyword == "Fight"
            and stat is Stat.POWER
            and any(
                other.cell == m.cell
                and other.owner is not m.owner
                and other.is_creature
                and matches(ability.modifier, other.defn)
                for other in game.minis
            )
        ):
            total += ability.x or 0
    return total


def cost_modifier(game: State, m: Mini) -> int:
    """The modifier to ``m``'s spawn cost now: Channel's reductions."""
    return -sum(x for modifier, x in channel_reductions(game, m.owner) if matches(modifier, m.defn))


def channel_reductions(game: State, player: Player) -> list[tuple[str | None, int]]:
    """The Channel abilities active for ``player``'s miniatures now, as (modifier, X)."""
    out = []
    for source_id, ability in game.rules.statics.channels:
        source = game.minis[source_id]
        if source.owner is player and is_active(game, source, ability):
            out.append((ability.modifier, ability.x or 0))
    return out


def base_power(game: State, m: Mini) -> int:
    """Printed power, or for Thanatomancy the creatures in its controller's graveyard."""
    if m.id in game.rules.statics.self_stats and has_active(game, m, "Thanatomancy") is not None:
        return sum(
            1
            for other in game.minis
            if other.owner is m.owner and other.zone is Zone.GRAVEYARD and other.is_creature
        )
    return m.defn.power


# --- blade abilities ---------------------------------------------------------------


def ability_def(game: State, source: int, index: int) -> AbilityDef:
    """The ability ``index`` of miniature ``source``; Hell's Fury stands for the Crit 2 it
    grants (a granted ability is named by the miniature and ability that grant it)."""
    ability = game.minis[source].abilities[index]
    return HELLS_FURY_CRIT if ability.keyword == "Hell's Fury" else ability


def blade_abilities(game: State, holder: Mini) -> list[tuple[int, int, AbilityDef]]:
    """The blade abilities ``holder`` has now, as (source, index, ability): its own, the
    Crit 2 of Hell's Fury (if it is a Hellbred ally near one), and under Copy those of
    every other local creature (never their copies); none at all under Nullify."""
    if holder.cell < 0 or _nullified(game, holder):
        return []
    out = [
        (holder.id, index, ability)
        for index, ability in enumerate(holder.abilities)
        if ability.activation.is_blade and is_active(game, holder, ability)
    ]
    out += _granted(game, holder)
    copies = game.rules.statics.of("Copy")
    if copies and any(
        mini == holder.id and is_active(game, holder, ability) for mini, _, ability in copies
    ):
        for other in game.minis:
            if other is holder or other.cell != holder.cell or not other.is_creature:
                continue
            out += [
                (other.id, index, ability)
                for index, ability in enumerate(other.abilities)
                if ability.activation.is_blade and is_active(game, other, ability)
            ]
            out += _granted(game, other)
    return out


def _granted(game: State, holder: Mini) -> list[tuple[int, int, AbilityDef]]:
    if holder.defn.lineage != "Hellbred" or not holder.is_creature:
        return []
    out = []
    for source_id, index, ability in game.rules.statics.of("Hell's Fury"):
        source = game.minis[source_id]
        if (
            source is not holder
            and source.owner is holder.owner
            and is_active(game, source, ability)
            and near(source.cell, holder.cell)
        ):
            out.append((source_id, index, HELLS_FURY_CRIT))
    return out


def _nullified(game: State, holder: Mini) -> bool:
    """Nullify negates the blade abilities of local creatures (not locations), narrowed by
    its modifier: Enemies, an aspect or a lineage (900.14)."""
    if not holder.is_creature:
        return False
    for source_id, _, ability in game.rules.statics.of("Nullify"):
        source = game.minis[source_id]
        if source.cell != holder.cell or not is_active(game, source, ability):
            continue
        modifier = ability.modifier
        if modifier == "Enemies" and holder.owner is source.owner:
            continue
        if modifier == "Self" and holder is not source:
            continue
        if matches(modifier, holder.defn):
            return True
    return False


# --- triggers ------------------------------------------------------------------------


def triggers(game: State, kind: EventKind, mini: int = -1, cell: int = -1) -> list[Trigger]:
    """The abilities that the event ``Event(kind, mini, cell)`` triggers now, in miniature
    and ability order (900.7).

    ``Statics.by_event`` lists only the abilities that listen to the event's kind (none
    listen to DISRUPTED), so what is left to ask depends on the kind alone. The event is
    made only when it triggers something."""
    listening = game.rules.statics.by_event[kind]
    if kind is EventKind.COMBAT_ENDED:
        due = [
            (holder, index)
            for holder, index, ability in listening
            if end_of_combat_due(game, game.minis[holder], index, ability)
        ]
    elif kind is EventKind.ENTERED:
        mover = game.minis[mini]
        due = [
            (holder, index)
            for holder, index, ability in listening
            if _enter_triggers(game, game.minis[holder], ability, mover, cell)
        ]
    else:  # SPAWNED (comes into play) and DESTROYED (Reincarnate): the miniature's own
        due = [(holder, index) for holder, index, _ in listening if holder == mini]
    if not due:
        return []
    event = Event(kind, mini, cell)
    return [Trigger(game.minis[holder].owner, holder, index, event) for holder, index in due]


def _enter_triggers(game: State, m: Mini, ability: AbilityDef, mover: Mini, cell: int) -> bool:
    """Whether ``mover`` entering ``cell`` triggers ``m``'s Ambush or Charge."""
    if ability.keyword == "Ambush":
        return (
            m.cell == cell
            and mover.owner is not m.owner
            and mover.is_creature
            and m.is_creature
            and is_active(game, m, ability)
        )
    return (
        ability.keyword == "Charge"
        and m is mover
        and is_active(game, m, ability)
        and game.creatures[m.owner.other][m.cell] > 0
    )


# --- stats after modifiers, and the questions abilities answer ------------------------


def power(game: State, m: Mini) -> int:
    return _modified(game, m, Stat.POWER, base_power(game, m))


def defense(game: State, m: Mini) -> int:
    return _modified(game, m, Stat.DEFENSE, m.defn.defense)


def life(game: State, m: Mini) -> int:
    return _modified(game, m, Stat.LIFE, m.defn.life)


def stat(game: State, m: Mini, stat: Stat) -> int:
    """A stat after all modifiers and the 900.8 minimums."""
    if stat is Stat.POWER:
        return power(game, m)
    d = m.defn
    return _modified(game, m, stat, (d.power, d.defense, d.life, d.spawn_cost)[stat])


def _modified(game: State, m: Mini, stat: Stat, base: int) -> int:
    """``stat`` of ``m`` from ``base`` (as printed, or Thanatomancy's power) after the
    modifiers that can change it and the 900.8 minimum."""
    statics = game.rules.statics
    if (
        statics.auras[stat]
        or m.id in statics.self_stats
        or (stat is Stat.COST and statics.channels)
    ):
        base += stat_modifier(game, m, stat)
    return apply_minimum(stat, base)


def claimed_points(game: State, player: Player) -> int:
    """803.1: the value of the scoring cells ``player`` claims now (Dominate claims a
    contested cell)."""
    total = 0
    dominators = game.rules.statics.of("Dominate")
    for cell in board.SCORING_CELLS[player]:
        if not game.creatures[player][cell]:
            continue
        if not game.creatures[player.other][cell] or (
            dominators and _dominates(game, player, cell)
        ):
            total += game.rules.values[cell]
    return total


def _dominates(game: State, player: Player, cell: int) -> bool:
    for mini, _, ability in game.rules.statics.of("Dominate"):
        m = game.minis[mini]
        if m.owner is player and m.cell == cell and is_active(game, m, ability):
            return True
    return False


def attack_bonus(game: State, owner: Player, cell: int) -> int:
    """Darkheart Cottage: each attack ``owner``'s creatures make in its cell has +1
    power per unengaged creature ``owner`` controls (FAQ: any kind of attack)."""
    bonus = 0
    for mini, _, ability in game.rules.statics.of("Darkheart Cottage"):
        m = game.minis[mini]
        if m.owner is owner and m.cell == cell and cell >= 0 and is_active(game, m, ability):
            bonus += sum(
                1
                for c in game.minis
                if c.owner is owner and c.cell >= 0 and c.is_creature
                and not game.creatures[owner.other][c.cell]
            )  # fmt: skip
    return bonus


def bodyguards(game: State, targets: Sequence[int]) -> list[int]:
    """The targets with an active Bodyguard."""
    if not game.rules.statics.of("Bodyguard"):
        return []
    return [i for i in targets if has_active(game, game.minis[i], "Bodyguard") is not None]


def bodyguard_need(game: State, mini: int) -> int:
    """The damage a Bodyguard must have before its allies may take any: enough to
    disrupt or destroy it."""
    m = game.minis[mini]
    return min(defense(game, m), life(game, m))


def bodyguards_short(
    game: State, targets: Sequence[int], assigned: dict[int, int]
) -> list[tuple[int, int]]:
    """Bodyguards still short of their need when others take damage: (id, need)."""
    guards = bodyguards(game, targets)
    if not guards or all(i in guards for i in assigned):
        return []
    return [
        (g, bodyguard_need(game, g))
        for g in guards
        if game.minis[g].damage + assigned.get(g, 0) < bodyguard_need(game, g)
    ]


def end_of_combat_due(game: State, m: Mini, index: int, ability: AbilityDef) -> bool:
    """Whether ``m``'s end-of-combat ability triggers at this step 10 (FAQ step 10 and
    Strikeback: each at most once per combat)."""
    combat = game.combat
    if m.cell < 0 or combat is None or combat.cell < 0 or (m.id, index) in combat.ended:
        return False
    keyword = ability.keyword
    if keyword == "Strikeback":
        return (
            m.id in combat.defenders
            and m.owner is not game.active
            and game.phase is Phase.ACTION
            and is_active(game, m, ability)
            and not any(game.minis[r].owner is m.owner for r in combat.removed)
        )
    if m.id not in combat.attackers:
        return False
    if keyword == "Bloodthirsty":
        return not any(
            game.minis[d].owner is not m.owner and game.minis[d].is_creature
            for d in combat.destroyed
        )
    return keyword in ("Detonate", "Fade")
