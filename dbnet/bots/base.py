"""What a computer player is: something that picks a choice for the pending decision.

A bot is given the game and nothing else: the dice for whatever it decides
are rolled only after it has decided, so it can never see them in advance.
All its randomness comes from the ``random.Random`` it was built with, so a
seeded bot plays the same game twice.
"""

from __future__ import annotations

import random
from typing import Protocol

from dbnet.engine import Choice, DamageChoice, Decision, Game
from dbnet.errors import IllegalChoiceError


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
    targets = decision.targets
    total = decision.total
    bars = sorted(rng.sample(range(total + len(targets) - 1), len(targets) - 1))
    amounts: list[int] = []
    previous = -1
    for bar in [*bars, total + len(targets) - 1]:
        amounts.append(bar - previous - 1)
        previous = bar
    return DamageChoice(tuple((t, n) for t, n in zip(targets, amounts, strict=True) if n > 0))
