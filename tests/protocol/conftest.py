"""The shipped setups the protocol tests play."""

from __future__ import annotations

import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, Options


@pytest.fixture(scope="session")
def setup() -> GameSetup:
    """The standard map and the two shipped warbands, tournament options."""
    return GameSetup(load_map(), default_warbands(load_catalog()))


@pytest.fixture(scope="session")
def short_setup() -> GameSetup:
    """The same, but the first player to win one turn wins the game."""
    return GameSetup(load_map(), default_warbands(load_catalog()), options=Options(turns_to_win=1))
