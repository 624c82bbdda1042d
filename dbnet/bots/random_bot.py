"""The random bot: every legal choice equally likely. A baseline and a fuzzer."""

from __future__ import annotations

import random

from dbnet.bots.base import legal_damage_split, pending_decision
from dbnet.engine import Choice, DecisionKind, Game


class RandomBot:
    """Picks uniformly among ``legal_choices()``; for damage, a random legal split."""

    __slots__ = ("rng",)

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Game) -> Choice:
        decision = pending_decision(game)
        if decision.kind is DecisionKind.DAMAGE:
            return legal_damage_split(game, decision, self.rng)
        choices = game.legal_choices()
        assert choices, "a pending decision other than damage always lists its choices"
        return choices[self.rng.randrange(len(choices))]

    def __repr__(self) -> str:
        return "RandomBot(rng)"
