"""A game's abilities indexed once by what they do, and the stats they change.

``Statics`` is built once per game, from the abilities the setup's miniatures have
(``Rules.statics``), so that a game whose miniatures have no ability pays almost nothing
for the questions ``abilities`` asks of a state. ``Stat`` names the four stats, and
``apply_minimum`` is the 900.8 floor of each.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final

from dbnet.engine.keywords import Kind, lookup
from dbnet.engine.model import AbilityDef, Activation
from dbnet.engine.waiting import EventKind


class Stat(enum.IntEnum):
    POWER = 0
    DEFENSE = 1
    LIFE = 2
    COST = 3

    def __repr__(self) -> str:
        return f"Stat.{self.name}"


# 900.8: power and cost can't go below 0, defense and life can't go below 1.
STAT_MINIMUM: tuple[int, int, int, int] = (0, 1, 1, 0)


def apply_minimum(stat: Stat, value: int) -> int:
    """900.8: clamp a stat after all modifiers."""
    floor = STAT_MINIMUM[stat]
    return value if value > floor else floor


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
