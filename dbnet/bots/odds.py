"""Attack-dice odds and the best way to split damage, for the greedy bot.

An attack die deals 1, 2 or 3 damage on faces 1-3 and nothing on 4-6 (302;
a blade is a miss without blade abilities). ``damage_distribution(n)`` is the
chance of each total with n dice. ``best_plan`` chooses, for a damage total,
which targets to destroy, which to disrupt and which to leave, to get the most
value; ``expected_value`` averages that over the dice.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

# Chance of 0, 1, 2, 3 damage from one attack die.
_DIE = (3 / 6, 1 / 6, 1 / 6, 1 / 6)
# Past this many targets the exact search (3 ** n plans) gives way to a greedy one.
_EXACT_LIMIT = 6


@functools.cache
def damage_distribution(dice: int) -> tuple[float, ...]:
    """``p[k]``: the chance that ``dice`` attack dice deal exactly k damage."""
    if dice <= 0:
        return (1.0,)
    previous = damage_distribution(dice - 1)
    out = [0.0] * (len(previous) + 3)
    for k, p in enumerate(previous):
        for face, q in enumerate(_DIE):
            out[k + face] += p * q
    return tuple(out)


class Outcome(enum.IntEnum):
    LEAVE = 0
    DISRUPT = 1
    DESTROY = 2


@dataclass(frozen=True, slots=True)
class Target:
    """A creature that may take damage: what each outcome still needs and is worth.

    A ``need`` of 0 means the outcome is not available (the creature is already
    marked, or, for DISRUPT, its life is no more than its defense so enough damage
    destroys it instead).
    """

    mini: int
    disrupt_need: int
    destroy_need: int
    disrupt_value: float
    destroy_value: float


@dataclass(frozen=True, slots=True)
class Plan:
    outcomes: tuple[Outcome, ...]
    need: int
    value: float


def make_target(
    mini: int, defense: int, life: int, damage: int, disrupt_value: float, destroy_value: float
) -> Target:
    """A Target for a creature with these stats and ``damage`` already taken."""
    if damage >= defense or damage >= life:
        return Target(mini, 0, 0, 0.0, 0.0)  # already marked this combat (step 5)
    disrupt_need = defense - damage if defense < life else 0
    return Target(mini, disrupt_need, life - damage, disrupt_value, destroy_value)


def _need(t: Target, o: Outcome) -> int:
    return (0, t.disrupt_need, t.destroy_need)[o]


def _value(t: Target, o: Outcome) -> float:
    return (0.0, t.disrupt_value, t.destroy_value)[o]


def _options(t: Target) -> tuple[Outcome, ...]:
    out = [Outcome.LEAVE]
    if t.disrupt_need > 0:
        out.append(Outcome.DISRUPT)
    if t.destroy_need > 0:
        out.append(Outcome.DESTROY)
    return tuple(out)


def all_plans(targets: Sequence[Target], bonus_if_cleared: float = 0.0) -> list[Plan]:
    """Every plan (one outcome per target), cheapest first; ``bonus_if_cleared`` is added
    when no live target is left in the cell."""
    if len(targets) > _EXACT_LIMIT:
        return _greedy_plans(targets)
    live = [i for i, t in enumerate(targets) if t.destroy_need > 0]
    plans = []
    for outcomes in product(*(_options(t) for t in targets)):
        need = sum(_need(t, o) for t, o in zip(targets, outcomes, strict=True))
        value = sum(_value(t, o) for t, o in zip(targets, outcomes, strict=True))
        if live and all(outcomes[i] is not Outcome.LEAVE for i in live):
            value += bonus_if_cleared
        plans.append(Plan(outcomes, need, value))
    plans.sort(key=lambda p: (p.need, -p.value))
    return plans


def _greedy_plans(targets: Sequence[Target]) -> list[Plan]:
    """Plans that destroy the best value-per-damage targets first (many targets)."""
    order = sorted(
        (i for i, t in enumerate(targets) if t.destroy_need > 0),
        key=lambda i: -targets[i].destroy_value / targets[i].destroy_need,
    )
    outcomes = [Outcome.LEAVE] * len(targets)
    plans = [Plan(tuple(outcomes), 0, 0.0)]
    need, value = 0, 0.0
    for i in order:
        outcomes[i] = Outcome.DESTROY
        need += targets[i].destroy_need
        value += targets[i].destroy_value
        plans.append(Plan(tuple(outcomes), need, value))
    return plans


def best_plan(plans: Sequence[Plan], total: int) -> Plan:
    """The most valuable plan that ``total`` damage pays for (cheapest on a tie)."""
    best = plans[0]
    for plan in plans:
        if plan.need > total:
            break
        if plan.value > best.value:
            best = plan
    return best


def expected_value(plans: Sequence[Plan], dice: int) -> float:
    """The value of the best plan, averaged over what ``dice`` attack dice can deal."""
    distribution = damage_distribution(dice)
    # best value affordable with k damage, for every k the dice can deal
    values = []
    best = 0.0
    i = 0
    for k in range(len(distribution)):
        while i < len(plans) and plans[i].need <= k:
            best = max(best, plans[i].value)
            i += 1
        values.append(best)
    return sum(p * v for p, v in zip(distribution, values, strict=True))


def assign(targets: Sequence[Target], plan: Plan, total: int) -> tuple[tuple[int, int], ...]:
    """Damage per target (sorted by mini, positive amounts, summing to ``total``) for ``plan``.

    Damage the plan does not need goes first to a creature being destroyed (where
    it changes nothing), else to one being left (damage lasts the phase, 802.2h),
    else to one being disrupted.
    """
    amounts = [_need(t, o) for t, o in zip(targets, plan.outcomes, strict=True)]
    spare = total - sum(amounts)
    assert spare >= 0, "the plan needs more damage than there is"
    if spare:
        for wanted in (Outcome.DESTROY, Outcome.LEAVE, Outcome.DISRUPT):
            spots = [i for i, o in enumerate(plan.outcomes) if o is wanted]
            if spots:
                amounts[spots[0]] += spare
                break
    pairs = sorted((t.mini, n) for t, n in zip(targets, amounts, strict=True) if n > 0)
    return tuple(pairs)
