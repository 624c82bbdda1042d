"""The seam where abilities plug into the engine.

The engine asks an ``AbilityRules`` object every question whose answer an
ability can change: a stat's modifiers (900.8 minimums are applied by the
engine, after all modifiers), whether an ability keyword is implemented at
all, and so on. ``NO_ABILITIES`` is the rulebook with no ability in play; the
ability system (a later issue) provides a richer implementation of the same
protocol, so the turn sequence never needs rewriting for it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dbnet.engine.model import Player

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


class AbilityRules(Protocol):
    """What the engine asks about abilities. Every method must be deterministic."""

    def implements(self, keyword: str) -> bool:
        """Whether this rule set gives the ability ``keyword`` its effect."""
        ...

    def stat_modifier(self, game: Game, mini: Mini, stat: Stat) -> int:
        """The sum of all modifiers to ``stat`` of ``mini`` now (may be negative)."""
        ...

    def blade_usable(self, game: Game, mini: Mini, index: int) -> bool:
        """Whether ability ``index`` of ``mini`` can take a blade now (Nullify says no)."""
        ...

    def activate_blade(self, game: Game, mini: Mini, index: int) -> None:
        """Resolve blade ability ``index`` of ``mini`` (combat step 3), e.g. by adding to
        ``game.combat.damage_bonus``."""
        ...

    def triggers(self, game: Game, event: Event) -> Sequence[Trigger]:
        """The abilities ``event`` triggers; they are simultaneous (900.7)."""
        ...

    def resolve_trigger(self, game: Game, trigger: Trigger) -> None:
        """Carry out a triggered ability (damage goes through ``Game.deal_damage``)."""
        ...


class NoAbilities:
    """The rules with no ability in effect: every modifier is 0."""

    __slots__ = ()

    def implements(self, keyword: str) -> bool:
        return False

    def stat_modifier(self, game: Game, mini: Mini, stat: Stat) -> int:
        return 0

    def blade_usable(self, game: Game, mini: Mini, index: int) -> bool:
        return False

    def activate_blade(self, game: Game, mini: Mini, index: int) -> None:
        raise AssertionError("no blade ability is usable without abilities")

    def triggers(self, game: Game, event: Event) -> Sequence[Trigger]:
        return ()

    def resolve_trigger(self, game: Game, trigger: Trigger) -> None:
        raise AssertionError("nothing triggers without abilities")

    def __repr__(self) -> str:
        return "NoAbilities()"


NO_ABILITIES = NoAbilities()


def apply_minimum(stat: Stat, value: int) -> int:
    """900.8: clamp a stat after all modifiers."""
    floor = STAT_MINIMUM[stat]
    return value if value > floor else floor
