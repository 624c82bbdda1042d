"""Session-wide real games: a short one (one turn to win, two-link chains, so the
chains refill) and a full one (tournament options), both
random against greedy."""

from __future__ import annotations

import pytest

from dbnet.engine import Options

from .helpers import RecordedGame, bot_game


@pytest.fixture(scope="session")
def short_game(tmp_path_factory: pytest.TempPathFactory) -> RecordedGame:
    path = tmp_path_factory.mktemp("short") / "short.dbnr"
    return bot_game(path, Options(turns_to_win=1), seed=1, chain_length=2)


@pytest.fixture(scope="session")
def full_game(tmp_path_factory: pytest.TempPathFactory) -> RecordedGame:
    path = tmp_path_factory.mktemp("full") / "full.dbnr"
    return bot_game(path, None, seed=2)


@pytest.fixture(scope="session")
def sibling_game(
    tmp_path_factory: pytest.TempPathFactory, short_game: RecordedGame
) -> RecordedGame:
    """Another short game between the same two players (another nonce: another game id)."""
    path = tmp_path_factory.mktemp("sibling") / "sibling.dbnr"
    return bot_game(
        path, Options(turns_to_win=1), seed=3, chain_length=4, identities=short_game.identities
    )
