"""Fixtures for the bot tests."""

from __future__ import annotations

import pytest

from dbnet.engine import GameSetup

from .helpers import shipped


@pytest.fixture(scope="session")
def shipped_setup() -> GameSetup:
    """The standard map and the two shipped default warbands."""
    return shipped()
