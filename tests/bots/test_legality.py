"""Bots only ever return legal choices, never change the game, and refuse to roll dice."""

from __future__ import annotations

import random

import pytest

from dbnet.bots import Bot, GreedyBot, RandomBot, make_bot
from dbnet.bots.match import roll_dice
from dbnet.engine import ChanceRequest, DamageChoice, Decision, DecisionKind, Game, GameSetup
from dbnet.errors import IllegalChoiceError, InvalidChoiceError


def check_damage(decision: Decision, choice: DamageChoice) -> None:
    ids = [mini for mini, _ in choice.assignments]
    assert ids == sorted(set(ids)), "targets named once each, in increasing order"
    assert all(mini in decision.targets for mini in ids)
    assert all(amount > 0 for _, amount in choice.assignments)
    assert sum(amount for _, amount in choice.assignments) == decision.total


def play_checked(setup: GameSetup, bots: tuple[Bot, Bot], seed: int) -> dict[DecisionKind, int]:
    """Play a whole game checking every bot choice; returns how often each kind came up."""
    game = Game(setup)
    dice = random.Random(seed)
    seen: dict[DecisionKind, int] = {}
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            game.roll(roll_dice(dice, pending.count))
            continue
        assert isinstance(pending, Decision)
        before = game.state_hash()
        choice = bots[pending.player].choose(game)
        assert game.state_hash() == before, "choosing must not change the game"
        if pending.kind is DecisionKind.DAMAGE:
            assert isinstance(choice, DamageChoice)
            check_damage(pending, choice)
        else:
            assert choice in (game.legal_choices() or [])
        seen[pending.kind] = seen.get(pending.kind, 0) + 1
        game.apply(choice)
    assert game.winner is not None
    return seen


@pytest.mark.parametrize(
    ("a", "b", "games"),
    [
        ("random", "random", 24),
        ("greedy", "random", 12),
        ("random", "greedy", 12),
        ("greedy", "greedy", 8),
    ],
)
def test_bots_choose_only_legal_choices(
    shipped_setup: GameSetup, a: str, b: str, games: int
) -> None:
    seen: dict[DecisionKind, int] = {}
    for seed in range(games):
        bots = (make_bot(a, random.Random(2 * seed)), make_bot(b, random.Random(2 * seed + 1)))
        for kind, n in play_checked(shipped_setup, bots, seed).items():
            seen[kind] = seen.get(kind, 0) + n
    # The games must have exercised combat, not just spawning and moving.
    for kind in (DecisionKind.SPAWN, DecisionKind.ACTION, DecisionKind.SHIFT, DecisionKind.STRIKE):
        assert seen.get(kind, 0) > 0, kind
    assert seen.get(DecisionKind.RESOLVE, 0) + seen.get(DecisionKind.FATE, 0) > 0


@pytest.mark.parametrize("bot", [RandomBot(random.Random(0)), GreedyBot(random.Random(0))])
def test_bots_refuse_dice_and_finished_games(shipped_setup: GameSetup, bot: Bot) -> None:
    game = Game(shipped_setup)
    assert isinstance(game.pending, ChanceRequest)  # the first initiative roll
    with pytest.raises(IllegalChoiceError, match="initiative dice"):
        bot.choose(game)
    game.resign(game.active)
    with pytest.raises(IllegalChoiceError, match="is over"):
        bot.choose(game)


def test_make_bot_names_the_bad_name() -> None:
    with pytest.raises(InvalidChoiceError, match="'clever'"):
        make_bot("clever", random.Random(0))
    assert make_bot("greedy", random.Random(0)).name == "greedy"
    assert make_bot("random", random.Random(0)).name == "random"
