"""Always-on abilities: stats, blade abilities in reach, and what an event triggers.

The engine asks this module every question whose answer an ability can change:
a stat after modifiers (900.8 minimums applied after all of them), which blade
abilities a miniature has now (its own, Copy's and Hell's Fury's, none under
Nullify), whether a rule-changing keyword is in effect for a miniature, and
which abilities a game event triggers (900.7). ``Statics`` indexes a game's
abilities once, at setup, so that a game whose miniatures have no ability pays
almost nothing for these questions.

An ability is *active* (glossary) while its miniature is in the dreamscape and,
for a "score" ability (303.2b, 900.12), on one of its controller's scoring cells.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from dbnet.engine import board
from dbnet.engine.enums import Zone
from dbnet.engine.keywords import ASPECT_WORDS, Kind, lookup
from dbnet.engine.model import AbilityDef, Activation, MiniatureDef, Player

if TYPE_CHECKING:
    from dbnet.engine.game import Game, Mini


class Stat(enum.IntEnum):
    POWER = 0
    DEFENSE = 1
    LIFE = 2
    COST = 3

    def __repr__(self) -> str:
        return f"Stat.{self.name}"


class EventKind(enum.IntEnum):
    """Game events that can trigger abilities (glossary: triggered ability)."""

    SPAWNED = 0  # came into play (303.2c)
    ENTERED = 1  # moved into a cell from another cell (glossary: enter)
    DESTROYED = 2
    DISRUPTED = 3
    COMBAT_ENDED = 4  # combat step 10

    def __repr__(self) -> str:
        return f"EventKind.{self.name}"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened to miniature ``mini`` (-1: none) in ``cell`` (-1: none)."""

    kind: EventKind
    mini: int = -1
    cell: int = -1


@dataclass(frozen=True, slots=True)
class Trigger:
    """Ability ``index`` of ``mini``, controlled by ``controller``, triggered by ``event``."""

    controller: Player
    mini: int
    index: int
    event: Event


# 900.8: power and cost can't go below 0, defense and life can't go below 1.
STAT_MINIMUM: tuple[int, int, int, int] = (0, 1, 1, 0)

HELLS_FURY_CRIT: Final = AbilityDef(
    "Crit", Activation.BLADE, x=2, text="Deal +2 damage this combat (granted by Hell's Fury)."
)

# Static keywords that change other creatures' stats: (stat, whose: "ally" local or
# adjacent, or "enemy" in the same cell, sign).
_AURAS: Final[dict[str, tuple[Stat, str, int]]] = {
    "Bolster": (Stat.DEFENSE, "ally", 1),
    "Enrage": (Stat.POWER, "ally", 1),
    "Invigorate": (Stat.LIFE, "ally", 1),
    "Inciter": (Stat.POWER, "enemy", 1),
    "Weaken": (Stat.POWER, "enemy", -1),
    "Panic": (Stat.DEFENSE, "enemy", -1),
    "Drain": (Stat.LIFE, "enemy", -1),
}
_SELF_STATS: Final = ("Fight", "Geomancy", "Thanatomancy")
END_OF_COMBAT: Final = ("Strikeback", "Bloodthirsty", "Detonate", "Fade")


def apply_minimum(stat: Stat, value: int) -> int:
    """900.8: clamp a stat after all modifiers."""
    floor = STAT_MINIMUM[stat]
    return value if value > floor else floor


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


_SPAWN_LIMITS: Final = ("Unique", "Vengeance")


class Statics:
    """A game's abilities, indexed by what they do (built once per game)."""

    __slots__ = (
        "auras",
        "by_event",
        "channels",
        "holders",
        "keywords",
        "self_stats",
        "spawn_abilities",
        "spawn_limited",
        "triggered",
    )

    def __init__(self, abilities: Sequence[tuple[AbilityDef, ...]]) -> None:
        """Index ``abilities``: each miniature's, by id."""
        self.auras: tuple[list[tuple[int, AbilityDef, str, int]], ...] = tuple([] for _ in Stat)
        """The auras by the stat they change: (mini, ability, whose, sign), in mini order."""
        self.self_stats: dict[int, list[AbilityDef]] = {}
        """Each miniature's abilities that change its own stats, by its id."""
        self.channels: list[tuple[int, AbilityDef]] = []
        self.spawn_abilities: list[tuple[int, int, AbilityDef]] = []
        """The spawn abilities (801.8) as (mini, index, ability), in mini order."""
        self.triggered: list[tuple[int, int, AbilityDef]] = []
        self.keywords: dict[str, list[tuple[int, int, AbilityDef]]] = {}
        """Every printed ability by keyword: (mini, index, ability), in mini order."""
        for mini, printed in enumerate(abilities):
            for index, ability in enumerate(printed):
                keyword = ability.keyword
                self.keywords.setdefault(keyword, []).append((mini, index, ability))
                if keyword in _AURAS:
                    stat, whose, sign = _AURAS[keyword]
                    self.auras[stat].append((mini, ability, whose, sign))
                elif keyword in _SELF_STATS:
                    self.self_stats.setdefault(mini, []).append(ability)
                elif keyword == "Channel":
                    self.channels.append((mini, ability))
                if ability.activation is Activation.SPAWN:
                    self.spawn_abilities.append((mini, index, ability))
                spec = lookup(keyword)
                if spec is not None and (
                    spec.kind is Kind.TRIGGERED or ability.activation is Activation.COMES_INTO_PLAY
                ):
                    self.triggered.append((mini, index, ability))
        self.holders: dict[str, frozenset[int]] = {
            keyword: frozenset(mini for mini, _, _ in printed)
            for keyword, printed in self.keywords.items()
        }
        """The miniatures with each keyword printed, by keyword."""
        self.spawn_limited = frozenset(
            mini for keyword in _SPAWN_LIMITS for mini in self.holders.get(keyword, ())
        )
        """The miniatures whose own abilities can bar their spawning (Unique, Vengeance)."""
        self.by_event: dict[EventKind, list[tuple[int, int, AbilityDef]]] = {
            kind: [t for t in self.triggered if _listens(t[2], kind)] for kind in EventKind
        }
        """The triggered abilities each kind of event can trigger (the rest never look)."""

    def of(self, keyword: str) -> Sequence[tuple[int, int, AbilityDef]]:
        """The abilities ``keyword`` as (mini, index, ability), in mini order."""
        return self.keywords.get(keyword, ())


def _listens(ability: AbilityDef, kind: EventKind) -> bool:
    if ability.activation is Activation.COMES_INTO_PLAY:
        return kind is EventKind.SPAWNED
    keyword = ability.keyword
    if kind is EventKind.ENTERED:
        return keyword in ("Ambush", "Charge")
    if kind is EventKind.DESTROYED:
        return keyword == "Reincarnate"
    return kind is EventKind.COMBAT_ENDED and keyword in END_OF_COMBAT


def is_active(game: Game, m: Mini, ability: AbilityDef) -> bool:
    """In the dreamscape and, for a score ability, on a scoring cell of its controller."""
    if m.cell < 0:
        return False
    return not ability.score or m.cell in board.SCORING_CELLS[m.owner]


_NO_HOLDERS: Final[frozenset[int]] = frozenset()


def has_active(game: Game, m: Mini, keyword: str) -> AbilityDef | None:
    """``m``'s first active ability ``keyword`` (a rule-changing static), or None."""
    if m.cell < 0 or m.id not in game.rules.statics.holders.get(keyword, _NO_HOLDERS):
        return None
    for ability in m.abilities:
        if ability.keyword == keyword and is_active(game, m, ability):
            return ability
    return None


def stat_modifier(game: Game, m: Mini, stat: Stat) -> int:
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


def cost_modifier(game: Game, m: Mini) -> int:
    """The modifier to ``m``'s spawn cost now: Channel's reductions."""
    return -sum(x for modifier, x in channel_reductions(game, m.owner) if matches(modifier, m.defn))


def channel_reductions(game: Game, player: Player) -> list[tuple[str | None, int]]:
    """The Channel abilities active for ``player``'s miniatures now, as (modifier, X)."""
    out = []
    for source_id, ability in game.rules.statics.channels:
        source = game.minis[source_id]
        if source.owner is player and is_active(game, source, ability):
            out.append((ability.modifier, ability.x or 0))
    return out


def base_power(game: Game, m: Mini) -> int:
    """Printed power, or for Thanatomancy the creatures in its controller's graveyard."""
    if m.id in game.rules.statics.self_stats and has_active(game, m, "Thanatomancy") is not None:
        return sum(
            1
            for other in game.minis
            if other.owner is m.owner and other.zone is Zone.GRAVEYARD and other.is_creature
        )
    return m.defn.power


# --- blade abilities ---------------------------------------------------------------


def ability_def(game: Game, source: int, index: int) -> AbilityDef:
    """The ability ``index`` of miniature ``source``; Hell's Fury stands for the Crit 2 it
    grants (a granted ability is named by the miniature and ability that grant it)."""
    ability = game.minis[source].abilities[index]
    return HELLS_FURY_CRIT if ability.keyword == "Hell's Fury" else ability


def blade_abilities(game: Game, holder: Mini) -> list[tuple[int, int, AbilityDef]]:
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


def _granted(game: Game, holder: Mini) -> list[tuple[int, int, AbilityDef]]:
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


def _nullified(game: Game, holder: Mini) -> bool:
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


def triggers(game: Game, kind: EventKind, mini: int = -1, cell: int = -1) -> list[Trigger]:
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
            if game.end_of_combat_due(game.minis[holder], index, ability)
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


def _enter_triggers(game: Game, m: Mini, ability: AbilityDef, mover: Mini, cell: int) -> bool:
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
