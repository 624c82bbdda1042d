"""Play whole bot-versus-bot games quickly: for selfplay, benchmarks and tests.

Nothing is formatted or logged here; ``dbnet.match.local`` is the driver that
records a game in notation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from dbnet.bots.base import Bot
from dbnet.engine import (
    ChanceRequest,
    EndReason,
    Game,
    GameSetup,
    Player,
)

DEFAULT_MAX_TURNS = 500


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a bot game ended. ``winner`` is None if it hit the turn limit unfinished."""

    winner: Player | None
    end_reason: EndReason | None
    turns: int
    decisions: int
    rolls: int
    turns_won: tuple[int, int]
    conquest_history: tuple[tuple[int, int], ...]
    state_hash: bytes


def roll_dice(dice: random.Random, count: int) -> list[int]:
    """``count`` six-sided dice from ``dice``."""
    return [dice.randrange(6) + 1 for _ in range(count)]


def play_match(
    setup: GameSetup,
    bots: tuple[Bot, Bot],
    dice: random.Random,
    *,
    max_turns: int = DEFAULT_MAX_TURNS,
    allow_unimplemented: bool = False,
) -> MatchResult:
    """Play one game, ``bots[0]`` as A and ``bots[1]`` as B, rolling with ``dice``
    (``allow_unimplemented``: abilities the engine can't play are inert, see ``Game``)."""
    game = Game(setup, allow_unimplemented=allow_unimplemented)
    decisions = rolls = 0
    while not game.is_over and game.turn <= max_turns:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            game.roll(roll_dice(dice, pending.count))
            rolls += 1
        else:
            assert pending is not None
            game.apply(bots[pending.player].choose(game))
            decisions += 1
    return MatchResult(
        winner=game.winner,
        end_reason=game.end_reason,
        turns=game.turn,
        decisions=decisions,
        rolls=rolls,
        turns_won=(game.turns_won[0], game.turns_won[1]),
        conquest_history=tuple(game.conquest_history),
        state_hash=game.state_hash(),
    )
