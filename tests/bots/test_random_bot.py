"""The random bot: uniform over the legal choices, and uniform damage splits."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from dbnet.bots import RandomBot, random_damage_split
from dbnet.bots.match import roll_dice
from dbnet.engine import Decision, DecisionKind, Game, GameSetup, Player


@given(
    total=st.integers(min_value=1, max_value=40),
    targets=st.lists(st.integers(0, 31), min_size=2, max_size=8, unique=True).map(sorted),
    seed=st.integers(0, 2**32),
)
def test_damage_split_is_always_valid(total: int, targets: list[int], seed: int) -> None:
    decision = Decision(Player.A, DecisionKind.DAMAGE, cell=12, total=total, targets=tuple(targets))
    choice = random_damage_split(decision, random.Random(seed))
    ids = [mini for mini, _ in choice.assignments]
    assert ids == sorted(ids)
    assert set(ids) <= set(targets)
    assert all(amount > 0 for _, amount in choice.assignments)
    assert sum(amount for _, amount in choice.assignments) == total


def test_damage_split_is_uniform_over_all_splits() -> None:
    # 3 damage between 2 targets: (3,0), (2,1), (1,2), (0,3) should each come up a quarter
    # of the time; 4,000 draws put each count within 3 standard deviations of 1,000.
    decision = Decision(Player.A, DecisionKind.DAMAGE, cell=12, total=3, targets=(4, 9))
    rng = random.Random(1)
    counts = Counter(random_damage_split(decision, rng).assignments for _ in range(4000))
    assert set(counts) == {((4, 3),), ((4, 2), (9, 1)), ((4, 1), (9, 2)), ((9, 3),)}
    assert all(900 <= n <= 1100 for n in counts.values()), counts


def test_random_bot_picks_every_legal_choice(shipped_setup: GameSetup) -> None:
    game = Game(shipped_setup)
    dice = random.Random(3)
    while not isinstance(game.pending, Decision):
        pending = game.pending
        assert pending is not None
        game.roll(roll_dice(dice, pending.count))
    legal = game.legal_choices()
    assert legal is not None
    assert len(legal) > 2
    bot = RandomBot(random.Random(5))
    counts = Counter(bot.choose(game) for _ in range(60 * len(legal)))
    assert set(counts) == set(legal)
    assert min(counts.values()) > 25  # about 60 each if uniform
