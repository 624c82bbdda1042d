"""The search bot: legal, reproducible at a playout budget, and sound in set positions.

Every test gives the bot a small playout budget, never a time budget, so that it
runs the same on any machine; its time budget is measured in
``benchmarks/bot_strength.py``.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbnet.bots import BOT_NAMES, LEVELS, RandomBot, SearchBot, make_bot
from dbnet.bots.match import roll_dice
from dbnet.bots.search import _race, evaluate
from dbnet.engine import (
    ChanceRequest,
    DamageChoice,
    Decision,
    Game,
    GameSetup,
    Player,
    Stage,
)

from .helpers import at, creature, position_game, shipped
from .test_legality import check_damage

SCOUT = creature("scout", 2, 1, 2, 3)
BYSTANDER = creature("bystander", 1, 0, 9, 9)  # stays in the reserves

SETUP = shipped()


def random_position(seed: int, decisions: int) -> Game:
    """The shipped game after ``decisions`` random decisions (dice from ``seed`` too), at a
    decision; an earlier one if the game ended first."""
    game = Game(SETUP)
    rng = random.Random(seed)
    bots = (RandomBot(rng), RandomBot(rng))
    last = game.copy()
    made = 0
    while not game.is_over and made < decisions:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            game.roll(roll_dice(rng, pending.count))
            continue
        assert isinstance(pending, Decision)
        last = game.copy()
        game.apply(bots[pending.player].choose(game))
        made += 1
    while isinstance(game.pending, ChanceRequest):
        game.roll(roll_dice(rng, game.pending.count))
    return last if game.is_over else game


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    decisions=st.integers(0, 300),
    level=st.sampled_from(sorted(LEVELS)),
)
def test_the_search_bot_returns_only_legal_choices(seed: int, decisions: int, level: str) -> None:
    game = random_position(seed, decisions)
    pending = game.pending
    assert isinstance(pending, Decision)
    before = game.state_hash()
    bot = SearchBot(random.Random(seed), level, playouts=12)
    choice = bot.choose(game)
    assert game.state_hash() == before, "thinking must not change the game"
    if isinstance(choice, DamageChoice):
        check_damage(pending, choice)
    game.check_choice(choice)  # raises if the choice is not legal now


def test_a_seed_and_a_playout_budget_give_the_same_choices() -> None:
    for seed in (1, 2, 3):
        game = random_position(seed, 40 * seed)
        first = SearchBot(random.Random(seed), playouts=60).choose(game)
        again = SearchBot(random.Random(seed), playouts=60).choose(game)
        assert first == again


def test_a_playout_budget_is_kept_and_reported() -> None:
    bot = SearchBot(random.Random(0), "normal", playouts=30)
    game = random_position(5, 20)
    bot.choose(game)
    assert bot.report.playouts == 30
    assert bot.seconds is None, "a playout budget alone has no clock"


def test_stop_ends_the_search_early_and_progress_counts_up() -> None:
    bot = SearchBot(random.Random(0), playouts=100_000)
    game = random_position(7, 30)
    shares: list[float] = []
    bot.think(game, shares.append, lambda: len(shares) >= 3)
    assert bot.report.playouts < 100
    assert shares == sorted(shares)
    assert all(0 <= s <= 1 for s in shares)


def last_phase(a_cells: tuple[str, ...], b_cells: tuple[str, ...], won: tuple[int, int]) -> Game:
    """A to act in the turn's last action phase (B went first), turns won ``won``."""
    a = (SCOUT,) * len(a_cells)
    b = (SCOUT,) * len(b_cells) + (BYSTANDER,)
    placements = tuple(at(c) for c in a_cells + b_cells)
    return position_game(
        a, b, placements, stage=Stage.ACTION, first=Player.B, action_index=3, turns_won=won
    )


def play_out_the_phase(game: Game, bot: SearchBot) -> None:
    """Let the bot play A's decisions until the turn's conquest (or the game's end)."""
    turn = game.turn
    while not game.is_over and game.turn == turn:
        pending = game.pending
        assert isinstance(pending, Decision), pending
        assert pending.player is Player.A, pending
        game.apply(bot.choose(game))


# easy draws among its well-visited choices on purpose (Level.temperature): not easy here
@pytest.mark.parametrize(("level", "seed"), [("normal", 0), ("normal", 1), ("hard", 2)])
def test_takes_an_immediate_win(level: str, seed: int) -> None:
    """803.1, 803.3: at 5 turns each, A claims c3 (5 points) by moving its scout from c2
    and wins the game; staying, B's claim on d2 (2) wins it for B."""
    game = last_phase(("c2",), ("d2",), (5, 5))
    play_out_the_phase(game, SearchBot(random.Random(seed), level, playouts=40))
    assert game.winner is Player.A


# easy draws among its well-visited choices on purpose (Level.temperature): not easy here
@pytest.mark.parametrize(("level", "seed"), [("normal", 0), ("normal", 1), ("hard", 2)])
def test_avoids_an_immediate_loss(level: str, seed: int) -> None:
    """803.1, 803.3: B needs one turn and claims c2 and b2 (3 + 2); A's scout on c4 (3)
    loses the turn and the game unless it moves to c3 (5), which ties the turn."""
    game = last_phase(("c4",), ("c2", "b2"), (4, 5))
    play_out_the_phase(game, SearchBot(random.Random(seed), level, playouts=40))
    assert not game.is_over
    assert game.turns_won == [4, 5]


def test_the_evaluation_reads_the_race_and_the_turn() -> None:
    """803.3: the side that needs fewer turns is ahead; a turn decided now settles a race
    at 5-5."""
    assert _race(0, 3, 0.1) == 1.0
    assert _race(3, 0, 0.9) == 0.0
    assert _race(2, 2, 0.5) == pytest.approx(0.5)
    assert _race(1, 3, 0.5) > 0.8
    winning = last_phase(("c3",), ("d2",), (5, 5))
    losing = last_phase(("c1",), ("d2",), (5, 5))
    assert evaluate(winning) > 0.8 > 0.2 > evaluate(losing)


def test_levels_are_bots_by_name_and_a_bad_budget_is_refused(shipped_setup: GameSetup) -> None:
    assert set(LEVELS) <= set(BOT_NAMES)
    bot = make_bot("normal", random.Random(0), playouts=5)
    assert isinstance(bot, SearchBot)
    assert bot.name == "normal"
    assert bot.playouts == 5
    with pytest.raises(ValueError, match="positive"):
        SearchBot(random.Random(0), seconds=0)
    with pytest.raises(ValueError, match="positive"):
        SearchBot(random.Random(0), playouts=0)
    with pytest.raises(ValueError, match="easy, normal, hard"):
        SearchBot(random.Random(0), "expert")
