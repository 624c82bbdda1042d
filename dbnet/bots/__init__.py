"""Computer players: a random baseline, a greedy one-ply player and a search bot in levels.

``make_bot('hard', rng)`` builds a bot by name; ``BOT_NAMES`` lists the names.
"""

from __future__ import annotations

import random
from typing import Final

from dbnet.bots.base import Bot, Progress, Stop, random_damage_split
from dbnet.bots.greedy import GreedyBot
from dbnet.bots.random_bot import RandomBot
from dbnet.bots.search import LEVELS, SearchBot, think
from dbnet.errors import InvalidChoiceError

BOT_NAMES: Final = ("random", "greedy", "easy", "normal", "hard")


def make_bot(
    name: str, rng: random.Random, *, seconds: float | None = None, playouts: int | None = None
) -> Bot:
    """The bot called ``name`` (one of BOT_NAMES), drawing its randomness from ``rng``.

    The search levels (``easy``, ``normal``, ``hard``) think for ``seconds`` and/or
    ``playouts`` per decision (whichever ends first; by default the level's own seconds);
    the other bots ignore the budget.
    """
    if name == "random":
        return RandomBot(rng)
    if name == "greedy":
        return GreedyBot(rng)
    if name in LEVELS:
        return SearchBot(rng, name, seconds=seconds, playouts=playouts)
    raise InvalidChoiceError(f"no bot called {name!r}; bots are {', '.join(BOT_NAMES)}")


__all__ = [
    "BOT_NAMES",
    "LEVELS",
    "Bot",
    "GreedyBot",
    "Progress",
    "RandomBot",
    "SearchBot",
    "Stop",
    "make_bot",
    "random_damage_split",
    "think",
]
