"""The state of a combat and of a roll in progress (internal to the engine).

``Combat`` is the progress of the FAQ's ten-step combat sequence in one cell
(cell -1: damage dealt outside combat, checked like steps 5-9, rule 900.3).
``Rolling`` is a roll of dice the game waits for, with the Fortunate rerolls
still to make (FAQ combat step 2): a regular attack, a deathblow, a special
attack, or Wail's two initiative dice.

Both are plain mutable records whose ``__slots__`` come from a table of how
each field is copied (``copying``); ``encode`` gives their part of the
canonical state (docs/state-hash.md).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from dbnet.engine.copying import Copy, CopyPlan
from dbnet.engine.model import Player

if TYPE_CHECKING:
    from dbnet.engine.enums import Step

# Attack die faces (302): index = die value - 1.
ATTACK_DAMAGE = (1, 2, 3, 0, 0, 0)
MISS_VALUE = 4  # a miss shows 4 or 5; attack dice are kept with 5 written as 4
BLADE_VALUE = 6


def dice_damage(values: Sequence[int]) -> int:
    """The damage attack dice show (302): 1, 2 or 3 each; misses and blades add nothing."""
    return sum([ATTACK_DAMAGE[v - 1] for v in values])


def attack_faces(values: Sequence[int]) -> list[int]:
    """Attack dice as kept: the two miss faces are one (Fortunate rerolls "a miss")."""
    return [MISS_VALUE if v == 5 else v for v in values]


class Fate(enum.IntEnum):
    """What combat step 5 (or an ability) decided for a miniature."""

    DISRUPT = 1
    DESTROY = 2


_COMBAT_FIELDS: Final = {
    "cell": Copy.SHARE,
    "attackers": Copy.SHARE,
    "defenders": Copy.SHARE,
    "resume": Copy.SHARE,
    "marks": Copy.DICT,
    "fate_queue": Copy.LIST,
    "deathblow_queue": Copy.LIST,
    "deathblown": Copy.LIST,
    "in_deathblow": Copy.SHARE,
    "damage_owner": Copy.SHARE,
    "damage_cell": Copy.SHARE,
    "damage_total": Copy.SHARE,
    "relentless": Copy.SHARE,
    "resolver": Copy.SHARE,
    "blades": Copy.SHARE,
    "blade_uses": Copy.LIST,
    "damage_bonus": Copy.SHARE,
    "ferocity": Copy.LIST,
    "removed": Copy.LIST,
    "destroyed": Copy.LIST,
    "ended": Copy.LIST,
}
_COMBAT_PLAN: Final = CopyPlan(_COMBAT_FIELDS)


class Combat:
    """Progress of one combat (FAQ combat sequence) in one cell."""

    __slots__ = tuple(_COMBAT_FIELDS)

    def __init__(
        self, cell: int, attackers: tuple[int, ...], resume: Step, defenders: tuple[int, ...] = ()
    ) -> None:
        """A combat in ``cell`` (-1: damage dealt outside combat, 900.3); ``resume`` is the
        step the game returns to afterwards; ``defenders`` are the enemy creatures in the
        cell when the attack is made (Strikeback)."""
        self.cell = cell
        self.attackers = attackers
        self.defenders = defenders
        self.resume = resume
        self.marks: dict[int, tuple[Fate, Player]] = {}
        """Miniatures to disrupt or destroy in step 7, and by whom (who scores, who places)."""
        self.fate_queue: list[int] = []
        self.deathblow_queue: list[int] = []
        self.deathblown: list[int] = []
        self.in_deathblow = False
        self.damage_owner = -1
        self.damage_cell = -1
        self.damage_total = 0
        self.relentless = False  # the damage being assigned comes from a Relentless attack
        self.resolver = -1
        self.blades = 0  # blades not yet assigned (combat step 3)
        self.blade_uses: list[tuple[int, int, int, int]] = []
        """(holder, source, index, activations) of the blade abilities used this combat."""
        self.damage_bonus = 0  # "+X damage this combat" from blade abilities (Crit, Fumble ...)
        self.ferocity: list[int] = []  # targets of Ferocity: disrupted means destroyed
        self.removed: list[int] = []  # creatures disrupted or destroyed in this combat
        self.destroyed: list[int] = []  # miniatures destroyed in this combat (Bloodthirsty)
        self.ended: list[tuple[int, int]] = []  # end-of-combat abilities already triggered

    def uses(self, holder: int, source: int, index: int) -> int:
        for h, s, i, n in self.blade_uses:
            if h == holder and s == source and i == index:
                return n
        return 0

    def record_use(self, holder: int, source: int, index: int) -> None:
        n = self.uses(holder, source, index)
        kept = [u for u in self.blade_uses if u[:3] != (holder, source, index)]
        self.blade_uses = sorted([*kept, (holder, source, index, n + 1)])

    def clone(self) -> Combat:
        other = Combat.__new__(Combat)
        _COMBAT_PLAN.copy(self, other)
        return other

    def encode(self) -> list[int]:
        """The combat's part of the state encoding (each list as its length, then its items;
        written as few list displays as possible, since every state in combat asks)."""
        marks = sorted(self.marks.items())
        out = [
            self.cell, len(self.attackers), *self.attackers,
            len(self.defenders), *self.defenders, len(marks),
        ]  # fmt: skip
        for mini, (fate, by) in marks:
            out += (mini, fate, by)
        deathblown = sorted(self.deathblown)
        out += [
            len(self.fate_queue), *self.fate_queue,
            len(self.deathblow_queue), *self.deathblow_queue,
            len(deathblown), *deathblown,
            len(self.ferocity), *self.ferocity,
            len(self.removed), *self.removed,
            len(self.destroyed), *self.destroyed,
            1 if self.in_deathblow else 0, self.damage_owner, self.damage_cell,
            self.damage_total, 1 if self.relentless else 0, self.resolver, self.blades,
            self.damage_bonus, self.resume, len(self.ended),
        ]  # fmt: skip
        for mini, index in self.ended:
            out += (mini, index)
        out.append(len(self.blade_uses))
        for use in self.blade_uses:
            out += use
        return out


class Purpose(enum.IntEnum):
    """What a roll is for."""

    ATTACK = 0  # a regular attack while striking: blades go to blade abilities
    DEATHBLOW = 1
    SPECIAL = 2  # an ability's special attack against one target
    WAIL = 3  # two initiative dice


class Stage(enum.IntEnum):
    ROLL = 0  # the dice are due
    DECIDE = 1  # the next Fortunate's owner chooses dice to reroll
    REROLL = 2  # the rerolled dice are due


_ROLLING_FIELDS: Final = {
    "purpose": Copy.SHARE,
    "owner": Copy.SHARE,
    "count": Copy.SHARE,
    "stage": Copy.SHARE,
    "dice": Copy.LIST,
    "fortunes": Copy.LIST,
    "rerolling": Copy.SHARE,
    "attacker": Copy.SHARE,
    "target": Copy.SHARE,
}
_ROLLING_PLAN: Final = CopyPlan(_ROLLING_FIELDS)


class Rolling:
    """A roll the game waits for, and the Fortunate rerolls still to come (FAQ step 2)."""

    __slots__ = tuple(_ROLLING_FIELDS)

    def __init__(
        self,
        purpose: Purpose,
        owner: Player,
        count: int,
        fortunes: list[tuple[int, int, int]],
        attacker: int = -1,
        target: int = -1,
    ) -> None:
        self.purpose = purpose
        self.owner = owner
        self.count = count  # dice due now (initial roll or rerolls)
        self.stage = Stage.ROLL
        self.dice: list[int] = []
        self.fortunes = fortunes  # (mini, ability index, X) of each Fortunate still to use
        self.rerolling: tuple[int, ...] = ()  # the dice values being rerolled
        self.attacker = attacker  # SPECIAL: the attacking creature; WAIL: the wailer
        self.target = target  # SPECIAL: the target

    def clone(self) -> Rolling:
        other = Rolling.__new__(Rolling)
        _ROLLING_PLAN.copy(self, other)
        return other

    def encode(self) -> list[int]:
        out = [
            self.purpose, self.owner, self.count, self.stage, self.attacker, self.target,
            len(self.dice), *self.dice, len(self.rerolling), *self.rerolling, len(self.fortunes),
        ]  # fmt: skip
        for fortune in self.fortunes:
            out += fortune
        return out
