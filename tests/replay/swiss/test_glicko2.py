"""Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2
system"): a player of 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to
a 1550 (RD 100) and a 1700 (RD 300), tau 0.5; the paper finds 1464.06, RD 151.52,
volatility 0.05999."""

from __future__ import annotations

import pytest

from dbnet.replay.swiss.glicko2 import Glicko, update
from dbnet.replay.swiss.ratings import rate


def test_the_papers_worked_example() -> None:
    player = Glicko(1500, 200, 0.06)
    games = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    after = update(player, games, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Glicko(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert after.deviation == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_every_player_is_updated_from_the_ratings_at_the_periods_start() -> None:
    """One period where a beats b and b beats c: a's game counts b at 1500, not b after
    beating c; and a draw moves two equal players nowhere."""
    ratings = {r.fingerprint: r for r in rate("abc", [[("a", "b", 1.0), ("b", "c", 1.0)]])}
    alone = {r.fingerprint: r for r in rate("ab", [[("a", "b", 1.0)]])}
    assert ratings["a"].rating == pytest.approx(alone["a"].rating)
    even = {r.fingerprint: r for r in rate("xy", [[("x", "y", 0.5)]])}
    assert even["x"].rating == pytest.approx(1500)
    assert [r.fingerprint for r in rate("abc", [[("a", "b", 1.0), ("b", "c", 1.0)]])] == [
        "a", "b", "c"
    ]  # fmt: skip
