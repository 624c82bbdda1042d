"""What a computer player is: something that picks a choice for the pending decision.

A bot is given the game and nothing else: the dice for whatever it decides
are rolled only after it has decided, so it can never see them in advance.
All its randomness comes from the ``random.Random`` it was built with, so a
seeded bot plays the same game twice.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from dbnet.engine import Choice, DamageChoice, Decision, Game
from dbnet.errors import IllegalChoiceError

Progress = Callable[[float], None]
"""Told the share of its budget a thinking bot has spent (0 to 1), now and then."""
Stop = Callable[[], bool]
"""Asked now and then while a bot thinks: True ends its search early."""


class Bot(Protocol):
    """A computer player."""

    @property
    def name(self) -> str:
        """A short name for logs and menus (``'random'``, ``'greedy'``)."""
        ...

    def choose(self, game: Game) -> Choice:
        """A legal choice for ``game``'s pending decision (which must be a Decision)."""
        ...


def pending_decision(game: Game) -> Decision:
    """The decision a bot is asked to make; IllegalChoiceError if the game waits for none."""
    pending = game.pending
    if not isinstance(pending, Decision):
        what = "is over" if pending is None else f"waits for {pending.kind.value} dice"
        raise IllegalChoiceError(f"a bot was asked to decide, but the game {what}")
    return pending


def random_damage_split(decision: Decision, rng: random.Random) -> DamageChoice:
    """A uniformly random split of ``decision.total`` among its targets.

    Every way of writing the total as a sum of len(targets) non-negative parts
    is equally likely (stars and bars); targets given nothing are left out.
    """
    amounts = _split(decision.targets, decision.total, rng)
    return DamageChoice(tuple((t, n) for t, n in sorted(amounts.items()) if n > 0))


def legal_damage_split(game: Game, decision: Decision, rng: random.Random) -> DamageChoice:
    """A random split the rules allow: while a local Bodyguard lacks the damage to disrupt
    or destroy it, the others may get nothing; so either everything goes to the Bodyguards,
    or each first gets what it lacks and the rest is split among all."""
    guards = game.bodyguards(decision.targets)
    lacking = {g: game.bodyguard_need(g) - game.minis[g].damage for g in guards}
    lacking = {g: n for g, n in lacking.items() if n > 0}
    if not lacking:
        return random_damage_split(decision, rng)
    total = decision.total
    if total < sum(lacking.values()) or rng.randrange(2) == 0:
        amounts = _split(tuple(guards), total, rng)
    else:
        amounts = _split(decision.targets, total - sum(lacking.values()), rng)
        for g, n in lacking.items():
            amounts[g] = amounts.get(g, 0) + n
    return DamageChoice(tuple((t, n) for t, n in sorted(amounts.items()) if n > 0))


def _split(targets: tuple[int, ...], total: int, rng: random.Random) -> dict[int, int]:
    bars = sorted(rng.sample(range(total + len(targets) - 1), len(targets) - 1))
    amounts: dict[int, int] = {}
    previous = -1
    for target, bar in zip(targets, [*bars, total + len(targets) - 1], strict=True):
        amounts[target] = bar - previous - 1
        previous = bar
    return amounts
