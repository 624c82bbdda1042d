"""Computer players: a random baseline and a greedy one-ply player.

``make_bot('greedy', rng)`` builds a bot by name; ``BOT_NAMES`` lists the names.
"""

from __future__ import annotations

import random
from typing import Final

from dbnet.bots.base import Bot, random_damage_split
from dbnet.bots.greedy import GreedyBot
from dbnet.bots.random_bot import RandomBot
from dbnet.errors import InvalidChoiceError

BOT_NAMES: Final = ("random", "greedy")


def make_bot(name: str, rng: random.Random) -> Bot:
    """The bot called ``name`` (one of BOT_NAMES), drawing its randomness from ``rng``."""
    if name == "random":
        return RandomBot(rng)
    if name == "greedy":
        return GreedyBot(rng)
    raise InvalidChoiceError(f"no bot called {name!r}; bots are {', '.join(BOT_NAMES)}")


__all__ = ["BOT_NAMES", "Bot", "GreedyBot", "RandomBot", "make_bot", "random_damage_split"]
